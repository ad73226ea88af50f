// FaultyFileSystem: the POSIX file system (base/file_system.h) with injected failures, for tests
// of what a writer does when the disk says no. fail_write(n, e) makes the nth write from now fail
// with errno e (ENOSPC, EIO, ...), fail_sync(n, e) the nth fsync or fdatasync; the file is left as
// the OS has it (the failing call writes nothing). Installed for the lifetime of the object.
#pragma once

#include <atomic>
#include <cerrno>
#include <filesystem>

#include "base/file_system.h"

namespace bloomcrawl::testing {

class FaultyFileSystem : public FileSystem {
 public:
  FaultyFileSystem() : previous_(set_file_system(this)) {}
  ~FaultyFileSystem() override { set_file_system(previous_); }
  FaultyFileSystem(const FaultyFileSystem&) = delete;
  FaultyFileSystem& operator=(const FaultyFileSystem&) = delete;

  void fail_write(int nth, int error) { arm(write_countdown_, write_error_, nth, error); }
  void fail_sync(int nth, int error) { arm(sync_countdown_, sync_error_, nth, error); }
  int writes() const { return writes_; }
  int syncs() const { return syncs_; }

  int write(int fd, const void* data, size_t size) override {
    ++writes_;
    if (fires(write_countdown_)) return write_error_;
    return FileSystem::write(fd, data, size);
  }
  int sync(int fd) override {
    ++syncs_;
    if (fires(sync_countdown_)) return sync_error_;
    return FileSystem::sync(fd);
  }
  int sync_data(int fd) override {
    ++syncs_;
    if (fires(sync_countdown_)) return sync_error_;
    return FileSystem::sync_data(fd);
  }

 private:
  static void arm(std::atomic<int>& countdown, int& error_slot, int nth, int error) {
    error_slot = error;
    countdown = nth;
  }
  static bool fires(std::atomic<int>& countdown) { return countdown.load() > 0 && --countdown == 0; }

  FileSystem* previous_;
  std::atomic<int> writes_{0};
  std::atomic<int> syncs_{0};
  std::atomic<int> write_countdown_{0};
  std::atomic<int> sync_countdown_{0};
  int write_error_ = EIO;
  int sync_error_ = EIO;
};

}  // namespace bloomcrawl::testing
