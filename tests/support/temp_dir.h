// TempDir: a fresh directory under the system's temp path, removed with everything in it when the
// object goes. Tests of any room use it; it knows nothing of what they store there.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace bloomcrawl::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "bloomcrawl-test-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace bloomcrawl::testing
