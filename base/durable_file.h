// Crash-safe writing on top of the FileSystem seam: a file is written under NAME.tmp, fsync'ed,
// then renamed to NAME, so NAME is always either absent or complete (the old content survives any
// failure); the directory is fsync'ed so the rename itself survives a crash. Failures throw
// CheckpointError naming the path and errno text, and leave no temp file behind.
#pragma once

#include <cstddef>
#include <filesystem>

#include "base/file_system.h"

namespace bloomcrawl {

// A file being written under a temporary name (which should end in ".tmp"); commit() makes it
// durable under its final name, which may be decided only once the content is written (layer
// files are named after their checksum).
class DurableFile {
 public:
  explicit DurableFile(std::filesystem::path temp_path);
  ~DurableFile();  // removes the temp file unless committed
  DurableFile(const DurableFile&) = delete;
  DurableFile& operator=(const DurableFile&) = delete;

  void append(const void* data, size_t size) { file_.append(data, size); }
  // fsync + rename; the caller fsyncs the directory (once for several files).
  void commit(const std::filesystem::path& final_path);

 private:
  WritableFile file_;
  bool committed_ = false;
};

void write_file_durably(const std::filesystem::path& path, const void* data, size_t size);
void sync_directory(const std::filesystem::path& dir);

}  // namespace bloomcrawl
