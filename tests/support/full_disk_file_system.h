// FullDiskFileSystem: the POSIX file system (base/file_system.h) with one kind of file filling
// up, for tests of a whole crawl running into a full disk. fill(part, after) makes every write to
// a file whose path contains `part` fail with ENOSPC once `after` more writes to such files have
// succeeded, and keeps failing them (a full disk stays full) until clear(). Writes to other files
// go through, so a test can fail exactly one output of the crawl. The failing write first stores
// half of its bytes, as a write that runs out of space part-way does, leaving a torn record for
// the writer to deal with. Installed for its lifetime.
#pragma once

#include <cerrno>
#include <filesystem>
#include <mutex>
#include <string>
#include <unordered_map>

#include "base/file_system.h"

namespace bloomcrawl::testing {

class FullDiskFileSystem : public FileSystem {
 public:
  FullDiskFileSystem() : previous_(set_file_system(this)) {}
  ~FullDiskFileSystem() override { set_file_system(previous_); }
  FullDiskFileSystem(const FullDiskFileSystem&) = delete;
  FullDiskFileSystem& operator=(const FullDiskFileSystem&) = delete;

  void fill(const std::string& path_part, int after_writes) {
    std::lock_guard<std::mutex> lock(mu_);
    part_ = path_part;
    allowance_ = after_writes;
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mu_);
    part_.clear();
  }
  int failed_writes() const {
    std::lock_guard<std::mutex> lock(mu_);
    return failed_;
  }

  int open_for_write(const std::filesystem::path& path, Mode mode, int* fd) override {
    const int error = FileSystem::open_for_write(path, mode, fd);
    if (error == 0) {
      std::lock_guard<std::mutex> lock(mu_);
      paths_[*fd] = path.string();
    }
    return error;
  }
  int write(int fd, const void* data, size_t size) override {
    bool full = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      const auto it = paths_.find(fd);
      full = !part_.empty() && it != paths_.end() && it->second.find(part_) != std::string::npos && allowance_-- <= 0;
      if (full) ++failed_;
    }
    if (!full) return FileSystem::write(fd, data, size);
    const int error = FileSystem::write(fd, data, size / 2);
    return error != 0 ? error : ENOSPC;
  }
  int close(int fd) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      paths_.erase(fd);
    }
    return FileSystem::close(fd);
  }

 private:
  FileSystem* previous_;
  mutable std::mutex mu_;
  std::unordered_map<int, std::string> paths_;  // open files by descriptor
  std::string part_;
  int allowance_ = 0;
  int failed_ = 0;
};

}  // namespace bloomcrawl::testing
