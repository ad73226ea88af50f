#include "base/file_system.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <system_error>

#include "base/data_error.h"

namespace bloomcrawl {
namespace {

FileSystem posix_file_system;
std::atomic<FileSystem*> current_file_system{&posix_file_system};

int error_or_zero(int rc) { return rc == 0 ? 0 : errno; }

// fsync(2)'s EINVAL and EROFS: a special file (a pipe, /dev/full) has nothing to make durable, so
// syncing it succeeds (an output may be a FIFO or /dev/null).
int sync_result(int rc) {
  const int error = error_or_zero(rc);
  return error == EINVAL || error == EROFS ? 0 : error;
}

}  // namespace

int FileSystem::open_for_write(const std::filesystem::path& path, Mode mode, int* fd) {
  const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (mode == Mode::kAppend ? O_APPEND : O_TRUNC);
  *fd = ::open(path.c_str(), flags, 0644);
  return *fd < 0 ? errno : 0;
}

int FileSystem::write(int fd, const void* data, size_t size) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

int FileSystem::sync(int fd) { return sync_result(::fsync(fd)); }

int FileSystem::sync_data(int fd) { return sync_result(::fdatasync(fd)); }

int FileSystem::close(int fd) { return error_or_zero(::close(fd)); }

int FileSystem::rename(const std::filesystem::path& from, const std::filesystem::path& to) {
  return error_or_zero(::rename(from.c_str(), to.c_str()));
}

int FileSystem::remove(const std::filesystem::path& path) { return error_or_zero(::unlink(path.c_str())); }

int FileSystem::truncate(const std::filesystem::path& path, uint64_t size) {
  return error_or_zero(::truncate(path.c_str(), static_cast<off_t>(size)));
}

int FileSystem::sync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  const int error = error_or_zero(::fsync(fd));
  ::close(fd);
  return error;
}

int FileSystem::read_file(const std::filesystem::path& path, size_t max_bytes, std::string* out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  out->clear();
  char buf[8192];
  int error = 0;
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = errno;
      break;
    }
    if (n == 0) break;
    if (static_cast<size_t>(n) > max_bytes - out->size()) {
      error = EFBIG;
      break;
    }
    out->append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return error;
}

FileSystem& file_system() { return *current_file_system.load(std::memory_order_acquire); }

FileSystem* set_file_system(FileSystem* fs) {
  return current_file_system.exchange(fs != nullptr ? fs : &posix_file_system, std::memory_order_acq_rel);
}

void throw_file_error(const std::filesystem::path& path, const std::string& what, int error) {
  throw CheckpointError(path.string(), what + ": " + std::generic_category().message(error));
}

WritableFile::WritableFile(std::filesystem::path path, FileSystem::Mode mode) : path_(std::move(path)) {
  if (const int error = file_system().open_for_write(path_, mode, &fd_))
    throw_file_error(path_, "cannot create", error);
}

WritableFile::~WritableFile() {
  if (fd_ < 0) return;
  if (const int error = file_system().close(fd_)) {
    std::fprintf(stderr, "%s: close failed (left open by its owner): %s\n", path_.c_str(),
                 std::generic_category().message(error).c_str());
  }
}

void WritableFile::append(const void* data, size_t size) {
  if (const int error = file_system().write(fd_, data, size)) throw_file_error(path_, "write failed", error);
}

void WritableFile::sync() {
  if (const int error = file_system().sync(fd_)) throw_file_error(path_, "fsync failed", error);
}

void WritableFile::sync_data() {
  if (const int error = file_system().sync_data(fd_)) throw_file_error(path_, "fdatasync failed", error);
}

void WritableFile::close() {
  if (fd_ < 0) throw CheckpointError(path_.string(), "closed twice");
  const int fd = fd_;
  fd_ = -1;
  if (const int error = file_system().close(fd)) throw_file_error(path_, "close failed", error);
}

void WritableFile::abandon() {
  if (fd_ < 0) return;
  file_system().close(fd_);
  fd_ = -1;
}

std::string read_whole_file(const std::filesystem::path& path, size_t max_bytes) {
  std::string out;
  const int error = file_system().read_file(path, max_bytes, &out);
  if (error == EFBIG) throw CheckpointError(path.string(), "too large: over " + std::to_string(max_bytes) + " bytes");
  if (error != 0) throw_file_error(path, "cannot read", error);
  return out;
}

}  // namespace bloomcrawl
