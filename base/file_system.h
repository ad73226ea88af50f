// FileSystem: the one seam through which the project's bytes reach the OS (and are read back).
// Every file it writes (checkpoints, filter layers, journal, page log, edges, WARC, reports) goes
// through file_system(), so a test can install a subclass that fails the Nth write or fsync, or
// reports ENOSPC, and watch the caller's error handling (LevelDB's Env plays this part there).
//
// The base class is the POSIX implementation and the process default. Its calls return 0 or the
// errno of the failure and never throw; the throwing helpers (WritableFile, read_whole_file,
// durable_file.h) sit above it and name the path in their CheckpointError. set_file_system() is
// for tests: install before the code under test runs, restore after; calls in flight keep the
// object they started with, so it must outlive them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace bloomcrawl {

class FileSystem {
 public:
  enum class Mode { kTruncate, kAppend };

  virtual ~FileSystem() = default;
  // Creates `path` if missing (0644); kTruncate empties it, kAppend writes at its end.
  virtual int open_for_write(const std::filesystem::path& path, Mode mode, int* fd);
  virtual int write(int fd, const void* data, size_t size);  // all of it, retrying short writes
  virtual int sync(int fd);                                  // fsync
  virtual int sync_data(int fd);                             // fdatasync
  virtual int close(int fd);
  virtual int rename(const std::filesystem::path& from, const std::filesystem::path& to);
  virtual int remove(const std::filesystem::path& path);
  // Cuts the file to `size` bytes: a record torn by a failed write or a kill is taken back.
  virtual int truncate(const std::filesystem::path& path, uint64_t size);
  virtual int sync_directory(const std::filesystem::path& dir);
  // The whole file into *out; EFBIG if it holds more than `max_bytes`.
  virtual int read_file(const std::filesystem::path& path, size_t max_bytes, std::string* out);
};

FileSystem& file_system();
// Installs `fs` (nullptr: the POSIX default) and returns the one it replaces.
FileSystem* set_file_system(FileSystem* fs);

// A file opened for writing through the seam. Failures throw CheckpointError naming the path and
// the errno text. Its owner ends it explicitly: close() (checked) or, once a failure of the file
// has been reported, abandon(). A file still open at destruction is closed there and a failed
// close is written to stderr, since a destructor cannot throw (it should not happen: it means an
// owner forgot to close, and close(2) can report data the kernel could not write back).
class WritableFile {
 public:
  WritableFile(std::filesystem::path path, FileSystem::Mode mode);
  ~WritableFile();
  WritableFile(const WritableFile&) = delete;
  WritableFile& operator=(const WritableFile&) = delete;

  void append(const void* data, size_t size);
  void append(std::string_view bytes) { append(bytes.data(), bytes.size()); }
  void sync();
  void sync_data();
  void close();    // reports a failed close (data the kernel could not write back); once only
  void abandon();  // closes without a check: the file's failure has been reported already
  bool is_open() const { return fd_ >= 0; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

// The whole of a file; CheckpointError if it cannot be read or holds more than `max_bytes`.
std::string read_whole_file(const std::filesystem::path& path, size_t max_bytes = SIZE_MAX);

// Throws CheckpointError "<path>: <what>: <strerror(error)>".
[[noreturn]] void throw_file_error(const std::filesystem::path& path, const std::string& what, int error);

}  // namespace bloomcrawl
