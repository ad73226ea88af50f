// Crash-safe file primitives for checkpoints: a file is written under NAME.tmp, fsync'ed, then
// renamed to NAME, so NAME is always either absent or complete; the directory is fsync'ed so
// the rename itself survives a crash. Failures throw CheckpointError naming the path and errno.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace bloomcrawl::seenfilter {

// A file being written under a temporary name (which should end in ".tmp"); commit() makes it
// durable under its final name, which may be decided only once the content is written (layer
// files are named after their checksum).
class DurableFile {
 public:
  explicit DurableFile(std::filesystem::path temp_path);
  ~DurableFile();  // removes the temp file unless committed
  DurableFile(const DurableFile&) = delete;
  DurableFile& operator=(const DurableFile&) = delete;

  void append(const void* data, size_t size);
  // fsync + rename; the caller fsyncs the directory (once for several files).
  void commit(const std::filesystem::path& final_path);

 private:
  std::filesystem::path temp_path_;
  int fd_ = -1;
};

void write_file_durably(const std::filesystem::path& path, const void* data, size_t size);
void sync_directory(const std::filesystem::path& dir);
// The whole of a small file (manifest, CURRENT); throws CheckpointError if unreadable or larger
// than max_bytes.
std::vector<uint8_t> read_small_file(const std::filesystem::path& path, size_t max_bytes);

}  // namespace bloomcrawl::seenfilter
