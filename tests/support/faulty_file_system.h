// FaultyFileSystem: the POSIX file system (base/file_system.h) with injected failures, for tests
// of what a writer does when the disk says no. fail_write(n, e) makes the nth write from now fail
// with errno e (ENOSPC, EIO, ...), fail_sync(n, e) the nth fsync or fdatasync of a file,
// fail_data_syncs(e) every fdatasync from now (only the journal uses it), fail_directory_sync(n, e)
// the nth fsync of a directory, and fail_step(n, e) the nth call of any kind that changes the disk
// (create, write, sync, close, rename, remove, directory sync), so a test can fail each step of a
// sequence in turn. fail_creating(part, e) fails every creation of a file whose path contains
// `part`, to stop a sequence at a named file; fail_syncing(part, e) every fsync and fdatasync of
// such a file; fail_close(n, e) the nth close. The failing call does
// nothing, except close, which still releases the descriptor (as close(2) does when it reports an
// error). syncs() counts fsync and fdatasync calls of files, directory_syncs() of directories.
//
// Power loss (LevelDB's DropUnsyncedFileData and DeleteFilesCreatedAfterLastDirSync): with
// track_unsynced_data(), every file opened for writing through the seam is followed: its bytes up
// to its last fsync or fdatasync are durable (those written before the call began: its size is
// taken first), the rest are not, and a file created since the last fsync of its directory has no
// durable name. power_loss() is the crash: from then on every call that changes the disk fails
// with EIO (the process runs on, but nothing more reaches the disk). reboot() then leaves the disk
// as a machine would find it: every followed file cut to its durable length, each without a durable
// name removed, and the faults cleared. A rename is taken as durable at once, the file keeping its
// state under its new name (every writer here fsyncs the directory after its renames), and only
// files written through the seam are followed
// (not RocksDB's, which has its own Env). written_back(part): the kernel wrote back every byte of
// the files whose path contains `part` before the crash, synced or not (it may write dirty pages in
// any order): reboot() keeps them whole, while the other files lose their unsynced bytes. Installed for the lifetime of
// the object; set faults before the code under test runs.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

#include "base/file_system.h"

namespace bloomcrawl::testing {

class FaultyFileSystem : public FileSystem {
 public:
  FaultyFileSystem() : previous_(set_file_system(this)) {}
  ~FaultyFileSystem() override { set_file_system(previous_); }
  FaultyFileSystem(const FaultyFileSystem&) = delete;
  FaultyFileSystem& operator=(const FaultyFileSystem&) = delete;

  void fail_write(int nth, int error) { write_.arm(nth, error); }
  void fail_sync(int nth, int error) { sync_.arm(nth, error); }
  void fail_data_syncs(int error) { data_sync_error_ = error; }
  void fail_directory_sync(int nth, int error) { directory_sync_.arm(nth, error); }
  void fail_creating(std::string path_part, int error) {
    creating_ = std::move(path_part);
    creating_error_ = error;
  }
  void fail_step(int nth, int error) { step_.arm(nth, error); }
  void fail_close(int nth, int error) { close_.arm(nth, error); }
  void fail_syncing(std::string path_part, int error) {
    std::lock_guard<std::mutex> lock(mu_);
    syncing_ = std::move(path_part);
    syncing_error_ = error;
  }
  int writes() const { return writes_; }
  int syncs() const { return syncs_; }
  int directory_syncs() const { return directory_syncs_; }
  int steps() const { return steps_; }

  void track_unsynced_data() { tracking_ = true; }
  void written_back(std::string path_part) {
    std::lock_guard<std::mutex> lock(mu_);
    written_back_ = std::move(path_part);
  }
  void power_loss() { crashed_ = true; }
  void reboot() {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [path, file] : files_) {
      std::error_code ec;
      if (!file.durable_name) {
        std::filesystem::remove(path, ec);
      } else if (!written_back_.empty() && path.string().find(written_back_) != std::string::npos) {
        continue;
      } else if (std::filesystem::file_size(path, ec) > file.durable_bytes && !ec) {
        std::filesystem::resize_file(path, file.durable_bytes, ec);
      }
    }
    files_.clear();
    descriptors_.clear();
    crashed_ = false;
  }

  int open_for_write(const std::filesystem::path& path, Mode mode, int* fd) override {
    if (const int error = step()) return error;
    if (!creating_.empty() && path.string().find(creating_) != std::string::npos) return creating_error_;
    std::error_code ec;
    const bool existed = std::filesystem::exists(path, ec);
    const int error = FileSystem::open_for_write(path, mode, fd);
    if (error != 0) return error;
    std::lock_guard<std::mutex> lock(mu_);
    descriptors_[*fd] = path;
    if (tracking_) {
      auto [it, added] = files_.try_emplace(path);
      if (added) {  // what was there before is taken as durable: written before the test's crash mode
        it->second.durable_name = existed;
        it->second.durable_bytes = existed ? std::filesystem::file_size(path, ec) : 0;
      }
      if (mode == Mode::kTruncate) it->second.durable_bytes = 0;  // a truncation is not undone: harsher
    }
    return error;
  }
  int write(int fd, const void* data, size_t size) override {
    ++writes_;
    if (const int error = step(write_)) return error;
    return FileSystem::write(fd, data, size);
  }
  int sync(int fd) override {
    ++syncs_;
    if (const int error = step(sync_)) return error;
    return synced(fd, [&] { return FileSystem::sync(fd); });
  }
  int sync_data(int fd) override {
    ++syncs_;
    if (const int error = step(sync_)) return error;
    if (const int error = data_sync_error_.load()) return error;
    return synced(fd, [&] { return FileSystem::sync_data(fd); });
  }
  int close(int fd) override {
    const int error = step(close_);
    const int closed = FileSystem::close(fd);
    {
      std::lock_guard<std::mutex> lock(mu_);
      descriptors_.erase(fd);
    }
    return error != 0 ? error : closed;
  }
  int rename(const std::filesystem::path& from, const std::filesystem::path& to) override {
    if (const int error = step()) return error;
    const int error = FileSystem::rename(from, to);
    if (error == 0) {
      std::lock_guard<std::mutex> lock(mu_);
      if (auto it = files_.find(from); it != files_.end()) {
        const FollowedFile file = it->second;
        files_.erase(it);
        files_[to] = file;
      } else {
        files_.erase(to);
      }
      for (auto& [fd, path] : descriptors_) {
        if (path == from) path = to;
      }
    }
    return error;
  }
  int remove(const std::filesystem::path& path) override {
    if (const int error = step()) return error;
    const int error = FileSystem::remove(path);
    if (error == 0 && tracking_) {
      std::lock_guard<std::mutex> lock(mu_);
      files_.erase(path);
    }
    return error;
  }
  int truncate(const std::filesystem::path& path, uint64_t size) override {
    if (const int error = step()) return error;
    const int error = FileSystem::truncate(path, size);
    if (error == 0 && tracking_) {
      std::lock_guard<std::mutex> lock(mu_);
      if (auto it = files_.find(path); it != files_.end() && it->second.durable_bytes > size) {
        it->second.durable_bytes = size;
      }
    }
    return error;
  }
  int sync_directory(const std::filesystem::path& dir) override {
    ++directory_syncs_;
    if (const int error = step(directory_sync_)) return error;
    const int error = FileSystem::sync_directory(dir);
    if (error == 0 && tracking_) {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [path, file] : files_) {
        if (path.parent_path() == dir) file.durable_name = true;
      }
    }
    return error;
  }

 private:
  // Fires once, on the nth call after arm(); fire() returns the errno to fail with, or 0.
  struct Fault {
    void arm(int nth, int e) {
      error = e;
      countdown = nth;
    }
    int fire() { return countdown.load() > 0 && --countdown == 0 ? error : 0; }
    std::atomic<int> countdown{0};
    int error = EIO;
  };

  struct FollowedFile {
    uint64_t durable_bytes = 0;
    bool durable_name = false;
  };

  // Counts a step; the errno of the step fault, else of `kind`'s, else 0.
  int step(Fault& kind) {
    if (const int error = step()) return error;
    return kind.fire();
  }
  int step() {
    ++steps_;
    if (crashed_.load()) return EIO;
    return step_.fire();
  }
  // Runs `sync` unless the file's syncs are to fail; on success, the bytes the file held before it
  // are durable.
  template <typename Sync>
  int synced(int fd, Sync sync) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      const auto d = descriptors_.find(fd);
      if (!syncing_.empty() && d != descriptors_.end() && d->second.string().find(syncing_) != std::string::npos) {
        return syncing_error_;
      }
    }
    struct stat before {};
    if (!tracking_ || ::fstat(fd, &before) != 0) return sync();
    const int error = sync();
    std::lock_guard<std::mutex> lock(mu_);
    if (auto d = descriptors_.find(fd); error == 0 && d != descriptors_.end()) {
      FollowedFile& file = files_[d->second];
      file.durable_bytes = std::max(file.durable_bytes, uint64_t(before.st_size));
    }
    return error;
  }

  FileSystem* previous_;
  std::atomic<int> writes_{0};
  std::atomic<int> syncs_{0};
  std::atomic<int> steps_{0};
  std::atomic<int> directory_syncs_{0};
  Fault write_;
  Fault sync_;
  Fault directory_sync_;
  Fault step_;
  Fault close_;
  std::atomic<int> data_sync_error_{0};
  std::string creating_;
  int creating_error_ = EIO;
  std::atomic<bool> tracking_{false};
  std::atomic<bool> crashed_{false};
  std::mutex mu_;  // guards what follows
  std::string syncing_;
  int syncing_error_ = EIO;
  std::string written_back_;
  std::unordered_map<int, std::filesystem::path> descriptors_;  // open files
  std::map<std::filesystem::path, FollowedFile> files_;
};

}  // namespace bloomcrawl::testing
