#include "seenfilter/durable_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "seenfilter/checkpoint_format.h"

namespace bloomcrawl::seenfilter {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw CheckpointError(path.string(), what + ": " + std::strerror(errno));
}

}  // namespace

DurableFile::DurableFile(std::filesystem::path temp_path) : temp_path_(std::move(temp_path)) {
  fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) fail(temp_path_, "cannot create");
}

DurableFile::~DurableFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temp_path_.c_str());
  }
}

void DurableFile::append(const void* data, size_t size) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(temp_path_, "write failed");
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
}

void DurableFile::commit(const std::filesystem::path& final_path) {
  if (::fsync(fd_) != 0) fail(temp_path_, "fsync failed");
  if (::close(fd_) != 0) {
    fd_ = -1;
    ::unlink(temp_path_.c_str());
    fail(temp_path_, "close failed");
  }
  fd_ = -1;
  if (::rename(temp_path_.c_str(), final_path.c_str()) != 0) {
    ::unlink(temp_path_.c_str());
    fail(final_path, "rename failed");
  }
}

void write_file_durably(const std::filesystem::path& path, const void* data, size_t size) {
  DurableFile file(path.string() + ".tmp");
  file.append(data, size);
  file.commit(path);
}

void sync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail(dir, "cannot open directory");
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) fail(dir, "fsync of directory failed");
}

std::vector<uint8_t> read_small_file(const std::filesystem::path& path, size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot open");
  std::vector<uint8_t> out;
  uint8_t buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int saved = errno;
      ::close(fd);
      errno = saved;
      fail(path, "read failed");
    }
    if (n == 0) break;
    out.insert(out.end(), buf, buf + n);
    if (out.size() > max_bytes) {
      ::close(fd);
      throw CheckpointError(path.string(), "too large: over " + std::to_string(max_bytes) + " bytes");
    }
  }
  ::close(fd);
  return out;
}

}  // namespace bloomcrawl::seenfilter
