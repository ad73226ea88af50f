// FaultyStoreFileSystem: RocksDB's file system under the frontier's stores
// (base/store_file_system.h) with injected failures, as RocksDB's own FaultInjectionTestFS and
// LevelDB's fault-injection tests do. fail(op, part, nth, error) makes the nth call of kind `op`
// from now on a file whose path contains `part` fail with `error` (ENOSPC: RocksDB's NoSpace, as
// a full disk; anything else: an IOError, as EIO), and with `every_later` every such call after
// it too (a full disk stays full, a bad sector stays bad) until clear(). A failing write stores
// nothing; a failing read returns no bytes. Calls of other kinds, or on other paths, go through.
// StoreFaults installs one for its lifetime (stores opened meanwhile use it); set faults before the
// code under test runs, or from any thread while it runs.
#pragma once

#include <rocksdb/file_system.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <utility>

#include "base/store_file_system.h"

namespace bloomcrawl::testing {

class FaultyStoreFileSystem : public rocksdb::FileSystemWrapper {
 public:
  enum class Op {
    kCreate,  // a file opened for writing
    kWrite,   // an append to a file
    kSync,    // a file's (or a directory's) sync or fsync
    kRename,  // a rename onto the path
    kLink,    // a hard link made at the path
    kRead,    // a read of a file
  };

  FaultyStoreFileSystem() : rocksdb::FileSystemWrapper(rocksdb::FileSystem::Default()) {}

  void fail(Op op, std::string path_part, int nth, int error, bool every_later = false) {
    std::lock_guard lock(mu_);
    fault_ = Fault{op, std::move(path_part), nth, error, every_later, true};
  }
  void clear() {
    std::lock_guard lock(mu_);
    fault_.armed = false;
  }
  int failures() const {
    std::lock_guard lock(mu_);
    return failures_;
  }

  static const char* kClassName() { return "FaultyStoreFileSystem"; }
  const char* Name() const override { return kClassName(); }

  rocksdb::IOStatus NewWritableFile(const std::string& path, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override {
    if (rocksdb::IOStatus failed = check(Op::kCreate, path); !failed.ok()) return failed;
    rocksdb::IOStatus status = target()->NewWritableFile(path, options, result, dbg);
    if (status.ok()) *result = std::make_unique<WritableFile>(std::move(*result), *this, path);
    return status;
  }
  rocksdb::IOStatus ReopenWritableFile(const std::string& path, const rocksdb::FileOptions& options,
                                       std::unique_ptr<rocksdb::FSWritableFile>* result,
                                       rocksdb::IODebugContext* dbg) override {
    if (rocksdb::IOStatus failed = check(Op::kCreate, path); !failed.ok()) return failed;
    rocksdb::IOStatus status = target()->ReopenWritableFile(path, options, result, dbg);
    if (status.ok()) *result = std::make_unique<WritableFile>(std::move(*result), *this, path);
    return status;
  }
  rocksdb::IOStatus NewRandomAccessFile(const std::string& path, const rocksdb::FileOptions& options,
                                        std::unique_ptr<rocksdb::FSRandomAccessFile>* result,
                                        rocksdb::IODebugContext* dbg) override {
    rocksdb::IOStatus status = target()->NewRandomAccessFile(path, options, result, dbg);
    if (status.ok()) *result = std::make_unique<RandomAccessFile>(std::move(*result), *this, path);
    return status;
  }
  rocksdb::IOStatus NewSequentialFile(const std::string& path, const rocksdb::FileOptions& options,
                                      std::unique_ptr<rocksdb::FSSequentialFile>* result,
                                      rocksdb::IODebugContext* dbg) override {
    rocksdb::IOStatus status = target()->NewSequentialFile(path, options, result, dbg);
    if (status.ok()) *result = std::make_unique<SequentialFile>(std::move(*result), *this, path);
    return status;
  }
  rocksdb::IOStatus NewDirectory(const std::string& path, const rocksdb::IOOptions& options,
                                 std::unique_ptr<rocksdb::FSDirectory>* result, rocksdb::IODebugContext* dbg) override {
    rocksdb::IOStatus status = target()->NewDirectory(path, options, result, dbg);
    if (status.ok()) *result = std::make_unique<Directory>(std::move(*result), *this, path);
    return status;
  }
  rocksdb::IOStatus RenameFile(const std::string& from, const std::string& to, const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override {
    if (rocksdb::IOStatus failed = check(Op::kRename, to); !failed.ok()) return failed;
    return target()->RenameFile(from, to, options, dbg);
  }
  rocksdb::IOStatus LinkFile(const std::string& from, const std::string& to, const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override {
    if (rocksdb::IOStatus failed = check(Op::kLink, to); !failed.ok()) return failed;
    return target()->LinkFile(from, to, options, dbg);
  }

 private:
  struct Fault {
    Op op = Op::kWrite;
    std::string path_part;
    int nth = 0;  // calls left until the one that fails (1: the next)
    int error = 0;
    bool every_later = false;
    bool armed = false;
  };

  // The status the call of kind `op` on `path` gets: OK, or the armed fault's error.
  rocksdb::IOStatus check(Op op, const std::string& path) {
    std::lock_guard lock(mu_);
    if (!fault_.armed || fault_.op != op || path.find(fault_.path_part) == std::string::npos) {
      return rocksdb::IOStatus::OK();
    }
    if (fault_.nth > 1) {
      --fault_.nth;
      return rocksdb::IOStatus::OK();
    }
    fault_.armed = fault_.every_later;
    ++failures_;
    const std::string what = "injected fault on " + path + ": " + std::generic_category().message(fault_.error);
    return fault_.error == ENOSPC ? rocksdb::IOStatus::NoSpace(what) : rocksdb::IOStatus::IOError(what);
  }

  class WritableFile : public rocksdb::FSWritableFileOwnerWrapper {
   public:
    WritableFile(std::unique_ptr<rocksdb::FSWritableFile> file, FaultyStoreFileSystem& fs, std::string path)
        : rocksdb::FSWritableFileOwnerWrapper(std::move(file)), fs_(fs), path_(std::move(path)) {}
    rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override {
      if (rocksdb::IOStatus failed = fs_.check(Op::kWrite, path_); !failed.ok()) return failed;
      return target()->Append(data, options, dbg);
    }
    rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                             const rocksdb::DataVerificationInfo& info, rocksdb::IODebugContext* dbg) override {
      if (rocksdb::IOStatus failed = fs_.check(Op::kWrite, path_); !failed.ok()) return failed;
      return target()->Append(data, options, info, dbg);
    }
    rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset, const rocksdb::IOOptions& options,
                                       rocksdb::IODebugContext* dbg) override {
      if (rocksdb::IOStatus failed = fs_.check(Op::kWrite, path_); !failed.ok()) return failed;
      return target()->PositionedAppend(data, offset, options, dbg);
    }
    rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset, const rocksdb::IOOptions& options,
                                       const rocksdb::DataVerificationInfo& info,
                                       rocksdb::IODebugContext* dbg) override {
      if (rocksdb::IOStatus failed = fs_.check(Op::kWrite, path_); !failed.ok()) return failed;
      return target()->PositionedAppend(data, offset, options, info, dbg);
    }
    rocksdb::IOStatus Sync(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override {
      if (rocksdb::IOStatus failed = fs_.check(Op::kSync, path_); !failed.ok()) return failed;
      return target()->Sync(options, dbg);
    }
    rocksdb::IOStatus Fsync(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override {
      if (rocksdb::IOStatus failed = fs_.check(Op::kSync, path_); !failed.ok()) return failed;
      return target()->Fsync(options, dbg);
    }
    rocksdb::IOStatus RangeSync(uint64_t offset, uint64_t bytes, const rocksdb::IOOptions& options,
                                rocksdb::IODebugContext* dbg) override {
      if (rocksdb::IOStatus failed = fs_.check(Op::kSync, path_); !failed.ok()) return failed;
      return target()->RangeSync(offset, bytes, options, dbg);
    }

   private:
    FaultyStoreFileSystem& fs_;
    std::string path_;
  };

  class RandomAccessFile : public rocksdb::FSRandomAccessFileOwnerWrapper {
   public:
    RandomAccessFile(std::unique_ptr<rocksdb::FSRandomAccessFile> file, FaultyStoreFileSystem& fs, std::string path)
        : rocksdb::FSRandomAccessFileOwnerWrapper(std::move(file)), fs_(fs), path_(std::move(path)) {}
    rocksdb::IOStatus Read(uint64_t offset, size_t n, const rocksdb::IOOptions& options, rocksdb::Slice* result,
                           char* scratch, rocksdb::IODebugContext* dbg) const override {
      if (rocksdb::IOStatus failed = fs_.check(Op::kRead, path_); !failed.ok()) {
        *result = rocksdb::Slice();
        return failed;
      }
      return target()->Read(offset, n, options, result, scratch, dbg);
    }
    rocksdb::IOStatus MultiRead(rocksdb::FSReadRequest* requests, size_t count, const rocksdb::IOOptions& options,
                                rocksdb::IODebugContext* dbg) override {
      // One request at a time, each through Read() and its check.
      for (size_t i = 0; i < count; ++i) {
        requests[i].status =
            Read(requests[i].offset, requests[i].len, options, &requests[i].result, requests[i].scratch, dbg);
      }
      return rocksdb::IOStatus::OK();
    }

   private:
    FaultyStoreFileSystem& fs_;
    std::string path_;
  };

  class SequentialFile : public rocksdb::FSSequentialFileOwnerWrapper {
   public:
    SequentialFile(std::unique_ptr<rocksdb::FSSequentialFile> file, FaultyStoreFileSystem& fs, std::string path)
        : rocksdb::FSSequentialFileOwnerWrapper(std::move(file)), fs_(fs), path_(std::move(path)) {}
    rocksdb::IOStatus Read(size_t n, const rocksdb::IOOptions& options, rocksdb::Slice* result, char* scratch,
                           rocksdb::IODebugContext* dbg) override {
      if (rocksdb::IOStatus failed = fs_.check(Op::kRead, path_); !failed.ok()) {
        *result = rocksdb::Slice();
        return failed;
      }
      return target()->Read(n, options, result, scratch, dbg);
    }

   private:
    FaultyStoreFileSystem& fs_;
    std::string path_;
  };

  class Directory : public rocksdb::FSDirectoryWrapper {
   public:
    Directory(std::unique_ptr<rocksdb::FSDirectory> directory, FaultyStoreFileSystem& fs, std::string path)
        : rocksdb::FSDirectoryWrapper(std::move(directory)), fs_(fs), path_(std::move(path)) {}
    rocksdb::IOStatus Fsync(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override {
      if (rocksdb::IOStatus failed = fs_.check(Op::kSync, path_); !failed.ok()) return failed;
      return rocksdb::FSDirectoryWrapper::Fsync(options, dbg);
    }
    rocksdb::IOStatus FsyncWithDirOptions(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg,
                                          const rocksdb::DirFsyncOptions& dir_options) override {
      if (rocksdb::IOStatus failed = fs_.check(Op::kSync, path_); !failed.ok()) return failed;
      return rocksdb::FSDirectoryWrapper::FsyncWithDirOptions(options, dbg, dir_options);
    }

   private:
    FaultyStoreFileSystem& fs_;
    std::string path_;
  };

  mutable std::mutex mu_;
  Fault fault_;
  int failures_ = 0;
};

// A FaultyStoreFileSystem installed under the frontier's stores for the object's lifetime (stores
// opened meanwhile use it; the one it replaced is put back at the end).
class StoreFaults {
 public:
  StoreFaults() : previous_(set_store_file_system(fs_)) {}
  ~StoreFaults() { set_store_file_system(previous_); }
  StoreFaults(const StoreFaults&) = delete;
  StoreFaults& operator=(const StoreFaults&) = delete;
  FaultyStoreFileSystem* operator->() const { return fs_.get(); }

 private:
  std::shared_ptr<FaultyStoreFileSystem> fs_ = std::make_shared<FaultyStoreFileSystem>();
  std::shared_ptr<rocksdb::FileSystem> previous_;
};

// Changes one bit a quarter into the store file `path` as a damaged disk would, in a new file: a
// checkpoint's table files are hard links, whose other names keep the good bytes.
inline void corrupt_store_file(const std::filesystem::path& path) {
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  bytes[bytes.size() / 4] = static_cast<char>(bytes[bytes.size() / 4] ^ 0x20);
  std::filesystem::remove(path);
  std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace bloomcrawl::testing
