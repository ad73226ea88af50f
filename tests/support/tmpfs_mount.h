// TmpfsMount: a small tmpfs mounted at a directory for the object's lifetime, a real file system
// that fills up (ENOSPC from the kernel, wherever the bytes come from: our writers, RocksDB's,
// libc's), for tests of the built programs on a full disk. Needs CAP_SYS_ADMIN (root in the test
// machine); mounted() says whether it worked and why_not() why not, so a test can skip with a
// reason. grow() resizes it in place (the files stay), as an operator freeing space would.
#pragma once

#include <sys/mount.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>

namespace bloomcrawl::testing {

class TmpfsMount {
 public:
  TmpfsMount(std::filesystem::path dir, uint64_t bytes) : dir_(std::move(dir)) {
    std::filesystem::create_directories(dir_);
    if (::mount("tmpfs", dir_.c_str(), "tmpfs", 0, size_option(bytes).c_str()) != 0) error_ = errno;
  }
  ~TmpfsMount() {
    if (mounted()) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  TmpfsMount(const TmpfsMount&) = delete;
  TmpfsMount& operator=(const TmpfsMount&) = delete;

  bool mounted() const { return error_ == 0; }
  std::string why_not() const {
    return "cannot mount a tmpfs at " + dir_.string() + ": " + std::generic_category().message(error_);
  }
  bool grow(uint64_t bytes) {
    return ::mount("tmpfs", dir_.c_str(), "tmpfs", MS_REMOUNT, size_option(bytes).c_str()) == 0;
  }
  const std::filesystem::path& path() const { return dir_; }

 private:
  static std::string size_option(uint64_t bytes) { return "size=" + std::to_string(bytes) + ",mode=0755"; }

  std::filesystem::path dir_;
  int error_ = 0;
};

}  // namespace bloomcrawl::testing
