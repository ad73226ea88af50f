// UrlStore: the disk half of a disk-mode frontier, the queued URLs in a RocksDB database keyed so
// that one host's URLs come out of a range scan in pop order, breadth-first by depth and FIFO
// within a depth (docs/frontier.md, "Key layout"). Values are opaque bytes.
// Contract:
//  - put() and erase() are buffered and applied together (a RocksDB write has a fixed cost
//    several times that of one key): on flush(), when kBatchedWrites are pending, and before a
//    scan() while puts are pending; a scan() skips the keys erased in the pending batch. They are
//    not durable by themselves (no write-ahead log): between checkpoints the live store is
//    scratch; checkpoint_to() copies what was applied before it was called.
//  - Every RocksDB failure throws CheckpointError "DIR: frontier store: STATUS" (RocksDB's status
//    names the file for a missing or corrupted one) and is sticky (docs/frontier.md, "When the
//    store fails"): from then on the store calls RocksDB for no write again (a writer used after
//    an error trips an assertion in Debian's RocksDB) and put(), flush(), scan() and
//    checkpoint_to() throw the first failure. A put() that throws has queued nothing. erase()
//    never throws: a failed write of the batch it completes is kept for the next call to report,
//    and after a failure erase() only notes the key (deletes matter to no one once the store is
//    given up). scan_all() still reads what was applied, with the pending batch merged in, so
//    that every queued URL can be listed after a failure.
//  - The batch is cleared only after a good write: a failed one keeps every URL it held.
//  - put(), erase(), flush() and scan() are called by one thread at a time (the frontier's lock);
//    checkpoint_to() may run on another thread meanwhile.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "base/sticky_failure.h"

namespace rocksdb {
class DB;
class Cache;
class Env;
class Iterator;
class Slice;
class Status;
class WriteBatch;
}  // namespace rocksdb

namespace bloomcrawl {

struct StoreKey {
  uint32_t host = 0;
  uint32_t depth = 0;
  uint64_t seq = 0;  // frontier-wide push counter: FIFO within a depth
  bool operator==(const StoreKey&) const = default;
  bool operator<(const StoreKey& other) const {
    return std::tie(host, depth, seq) < std::tie(other.host, other.depth, other.seq);
  }
};

class UrlStore {
 public:
  // Opens the store in `directory`, creating it if absent. `memory_budget` bytes bound the
  // memtables and the block cache (index blocks included). I/O goes through store_env()
  // (base/store_file_system.h).
  UrlStore(std::filesystem::path directory, size_t memory_budget);
  ~UrlStore();
  UrlStore(const UrlStore&) = delete;
  UrlStore& operator=(const UrlStore&) = delete;

  static constexpr size_t kBatchedWrites = 256;

  void put(const StoreKey& key, std::string_view url);
  void erase(const StoreKey& key);
  void flush();
  // Visits the keys of `from.host` from `from` on, in order, until `visit` returns false.
  void scan(const StoreKey& from, const std::function<bool(const StoreKey&, std::string_view)>& visit);
  // Visits every key of every host in order with one sequential pass (O(keys), bounded memory),
  // until `visit` returns false.
  void scan_all(const std::function<bool(const StoreKey&, std::string_view)>& visit);

  // A consistent copy of the store into `directory`, which must not exist: SST files are
  // hard-linked, so only the memtable (flushed first) and a few small files are written.
  void checkpoint_to(const std::filesystem::path& directory);
  // Makes `live` (emptied first) a writable copy of the checkpoint `checkpoint`: SST files are
  // hard-linked (they are never modified), the small files copied. Throws naming a missing one.
  static void clone(const std::filesystem::path& checkpoint, const std::filesystem::path& live);
  // Reads every block of the checkpoint `checkpoint` and checks its checksum, without writing
  // anything there: a corrupted or unreadable file throws CheckpointError naming it, so that a
  // resume finds it when it loads the generation rather than at the first scan that reads it.
  static void verify(const std::filesystem::path& checkpoint);

  // The first failure (empty while there is none): from any thread.
  std::string failure() const;
  uint64_t disk_bytes() const;  // live SST files
  size_t memory_bytes() const;  // memtables and block cache in use
  const std::filesystem::path& directory() const { return directory_; }

 private:
  bool failed() const { return failure_.failed(); }
  // Records `problem` as the store's failure (the first one is kept); fail() also throws it.
  void record_failure(const std::string& problem);
  [[noreturn]] void fail(const rocksdb::Status& status);
  [[noreturn]] void fail(const std::string& problem);
  [[noreturn]] void throw_failure() const;
  // Applies the pending batch; false (the failure recorded, the batch kept) when RocksDB refuses.
  bool write_pending();
  StoreKey decode(const rocksdb::Slice& key);

  std::filesystem::path directory_;
  std::shared_ptr<rocksdb::Env> env_;  // outlives db_
  std::shared_ptr<rocksdb::Cache> cache_;
  std::unique_ptr<rocksdb::DB> db_;
  std::unique_ptr<rocksdb::WriteBatch> pending_;
  size_t pending_puts_ = 0;
  std::unordered_set<uint64_t> pending_erased_;       // seqs (unique per key) deleted in pending_
  std::unique_ptr<rocksdb::Iterator> host_iterator_;  // reused by scan()
  StickyFailure failure_{"frontier store"};
};

}  // namespace bloomcrawl
