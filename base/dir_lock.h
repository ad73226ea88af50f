// DirLock: one process at a time in a directory, as LevelDB's LOCK file does. The lock is an
// advisory flock() on DIR/LOCK, so the kernel releases it when the holder dies in any way (kill -9
// included) and no stale lock is ever left to clean up. flock() belongs to the open file
// description, so two DirLocks on one directory conflict even inside one process.
//
// The holder writes its PID (decimal, then "\n") into LOCK so that a refused process can name it;
// the file is only a courtesy, never trusted for the lock itself, and stays after release (removing
// it would let a later process lock a file another is about to lock by its old name).
// Format: docs/checkpoint-format.md, "LOCK".
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace bloomcrawl {

inline constexpr const char* kLockFileName = "LOCK";

// Another process (or another DirLock of this one) holds the directory.
class DirLockedError : public std::runtime_error {
 public:
  DirLockedError(const std::filesystem::path& dir, pid_t holder);
  pid_t holder() const { return holder_; }  // 0 when LOCK does not (yet) name it

 private:
  pid_t holder_;
};

// The PID that `dir`/LOCK records (its holder, or its last holder once released), 0 if none. Reads
// the file only: never takes the lock.
pid_t recorded_lock_holder(const std::filesystem::path& dir);

class DirLock {
 public:
  // Creates `dir` if missing and locks it. Throws DirLockedError when it is held, and
  // CheckpointError (base/data_error.h) naming the file when LOCK cannot be created or written.
  explicit DirLock(std::filesystem::path dir);
  ~DirLock();  // releases the lock
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

  const std::filesystem::path& directory() const { return dir_; }

 private:
  std::filesystem::path dir_;
  int fd_ = -1;
};

}  // namespace bloomcrawl
