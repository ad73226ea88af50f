#include "base/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <string>

#include "base/file_system.h"

namespace bloomcrawl {
namespace {

std::string locked_message(const std::filesystem::path& dir, pid_t holder) {
  const std::string who =
      holder > 0 ? "process " + std::to_string(holder) : "another process (its PID is not recorded yet)";
  return dir.string() + ": in use by " + who + " (" + (dir / kLockFileName).string() +
         " is locked); only one bloomcrawl process may use a directory at a time";
}

// The PID in a LOCK file, 0 if it holds none.
pid_t recorded_holder(const std::filesystem::path& lock_path) {
  std::string text;
  if (file_system().read_file(lock_path, 64, &text) != 0) return 0;
  pid_t pid = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), pid);
  return error == std::errc() && end != text.data() && pid > 0 ? pid : 0;
}

}  // namespace

pid_t recorded_lock_holder(const std::filesystem::path& dir) { return recorded_holder(dir / kLockFileName); }

DirLockedError::DirLockedError(const std::filesystem::path& dir, pid_t holder)
    : std::runtime_error(locked_message(dir, holder)), holder_(holder) {}

DirLock::DirLock(std::filesystem::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) throw_file_error(dir_, "cannot create directory", ec.value());
  const std::filesystem::path path = dir_ / kLockFileName;
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw_file_error(path, "cannot open lock file", errno);
  int rc = 0;
  do {
    rc = ::flock(fd_, LOCK_EX | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    const int error = errno;
    ::close(fd_);
    if (error == EWOULDBLOCK) throw DirLockedError(dir_, recorded_holder(path));
    throw_file_error(path, "cannot lock", error);
  }
  // Not through the FileSystem seam: the lock needs the descriptor itself. Written over the old
  // content, then cut to length: a LOCK that already has a block needs no new space, so a full
  // disk does not keep a crawl from resuming.
  const std::string pid = std::to_string(::getpid()) + "\n";
  const ssize_t written = ::pwrite(fd_, pid.data(), pid.size(), 0);
  int error = written < 0 ? errno : written != static_cast<ssize_t>(pid.size()) ? EIO : 0;
  if (error == 0 && ::ftruncate(fd_, static_cast<off_t>(pid.size())) != 0) error = errno;
  if (error != 0) {
    ::close(fd_);
    throw_file_error(path, "cannot record this process's PID", error);
  }
}

DirLock::~DirLock() { ::close(fd_); }

}  // namespace bloomcrawl
