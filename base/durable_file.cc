#include "base/durable_file.h"

namespace bloomcrawl {

DurableFile::DurableFile(std::filesystem::path temp_path) : file_(std::move(temp_path), FileSystem::Mode::kTruncate) {}

DurableFile::~DurableFile() {
  if (committed_) return;
  file_.abandon();  // whatever failed has been thrown: the temp file is not kept
  file_system().remove(file_.path());
}

void DurableFile::commit(const std::filesystem::path& final_path) {
  file_.sync();
  file_.close();
  if (const int error = file_system().rename(file_.path(), final_path))
    throw_file_error(final_path, "rename failed", error);
  committed_ = true;
}

void write_file_durably(const std::filesystem::path& path, const void* data, size_t size) {
  DurableFile file(path.string() + ".tmp");
  file.append(data, size);
  file.commit(path);
}

void sync_directory(const std::filesystem::path& dir) {
  if (const int error = file_system().sync_directory(dir)) throw_file_error(dir, "fsync of directory failed", error);
}

}  // namespace bloomcrawl
