// FaultyFileSystem: the POSIX file system (base/file_system.h) with injected failures, for tests
// of what a writer does when the disk says no. fail_write(n, e) makes the nth write from now fail
// with errno e (ENOSPC, EIO, ...), fail_sync(n, e) the nth fsync or fdatasync of a file,
// fail_data_syncs(e) every fdatasync from now (only the journal uses it), fail_directory_sync(n, e)
// the nth fsync of a directory, and fail_step(n, e) the nth call of any kind that changes the disk
// (create, write, sync, close, rename, remove, directory sync), so a test can fail each step of a
// sequence in turn. fail_creating(part, e) fails every creation of a file whose path contains
// `part`, to stop a sequence at a named file. The failing call does nothing, except close, which
// still releases the descriptor (as close(2) does when it reports an error). Installed for the
// lifetime of the object; set faults before the code under test runs.
#pragma once

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <string>

#include "base/file_system.h"

namespace bloomcrawl::testing {

class FaultyFileSystem : public FileSystem {
 public:
  FaultyFileSystem() : previous_(set_file_system(this)) {}
  ~FaultyFileSystem() override { set_file_system(previous_); }
  FaultyFileSystem(const FaultyFileSystem&) = delete;
  FaultyFileSystem& operator=(const FaultyFileSystem&) = delete;

  void fail_write(int nth, int error) { write_.arm(nth, error); }
  void fail_sync(int nth, int error) { sync_.arm(nth, error); }
  void fail_data_syncs(int error) { data_sync_error_ = error; }
  void fail_directory_sync(int nth, int error) { directory_sync_.arm(nth, error); }
  void fail_creating(std::string path_part, int error) {
    creating_ = std::move(path_part);
    creating_error_ = error;
  }
  void fail_step(int nth, int error) { step_.arm(nth, error); }
  int writes() const { return writes_; }
  int syncs() const { return syncs_; }
  int steps() const { return steps_; }

  int open_for_write(const std::filesystem::path& path, Mode mode, int* fd) override {
    if (const int error = step()) return error;
    if (!creating_.empty() && path.string().find(creating_) != std::string::npos) return creating_error_;
    return FileSystem::open_for_write(path, mode, fd);
  }
  int write(int fd, const void* data, size_t size) override {
    ++writes_;
    if (const int error = step(write_)) return error;
    return FileSystem::write(fd, data, size);
  }
  int sync(int fd) override {
    ++syncs_;
    if (const int error = step(sync_)) return error;
    return FileSystem::sync(fd);
  }
  int sync_data(int fd) override {
    ++syncs_;
    if (const int error = step(sync_)) return error;
    if (const int error = data_sync_error_.load()) return error;
    return FileSystem::sync_data(fd);
  }
  int close(int fd) override {
    const int error = step();
    const int closed = FileSystem::close(fd);
    return error != 0 ? error : closed;
  }
  int rename(const std::filesystem::path& from, const std::filesystem::path& to) override {
    if (const int error = step()) return error;
    return FileSystem::rename(from, to);
  }
  int remove(const std::filesystem::path& path) override {
    if (const int error = step()) return error;
    return FileSystem::remove(path);
  }
  int sync_directory(const std::filesystem::path& dir) override {
    if (const int error = step(directory_sync_)) return error;
    return FileSystem::sync_directory(dir);
  }

 private:
  // Fires once, on the nth call after arm(); fire() returns the errno to fail with, or 0.
  struct Fault {
    void arm(int nth, int e) {
      error = e;
      countdown = nth;
    }
    int fire() { return countdown.load() > 0 && --countdown == 0 ? error : 0; }
    std::atomic<int> countdown{0};
    int error = EIO;
  };

  // Counts a step; the errno of the step fault, else of `kind`'s, else 0.
  int step(Fault& kind) {
    if (const int error = step()) return error;
    return kind.fire();
  }
  int step() {
    ++steps_;
    return step_.fire();
  }

  FileSystem* previous_;
  std::atomic<int> writes_{0};
  std::atomic<int> syncs_{0};
  std::atomic<int> steps_{0};
  Fault write_;
  Fault sync_;
  Fault directory_sync_;
  Fault step_;
  std::atomic<int> data_sync_error_{0};
  std::string creating_;
  int creating_error_ = EIO;
};

}  // namespace bloomcrawl::testing
