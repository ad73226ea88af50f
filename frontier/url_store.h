// UrlStore: the disk half of a disk-mode frontier, the queued URLs in a RocksDB database keyed so
// that one host's URLs come out of a range scan in pop order, breadth-first by depth and FIFO
// within a depth (docs/frontier.md, "Key layout"). Values are opaque bytes.
// Contract:
//  - put() and erase() are buffered and applied together (a RocksDB write has a fixed cost
//    several times that of one key): on flush(), when kBatchedWrites are pending, and before a
//    scan() while puts are pending; a scan() skips the keys erased in the pending batch. They are
//    not durable by themselves (no write-ahead log): between checkpoints the live store is
//    scratch; checkpoint_to() copies what was applied before it was called.
//  - Every RocksDB failure throws std::runtime_error "frontier store DIR: STATUS"; RocksDB's
//    status names the file for a missing or corrupted one.
//  - put(), erase(), flush() and scan() are called by one thread at a time (the frontier's lock);
//    checkpoint_to() may run on another thread meanwhile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <vector>

namespace rocksdb {
class DB;
class Cache;
class Iterator;
class Slice;
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
  // memtables and the block cache (index blocks included).
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

  uint64_t disk_bytes() const;  // live SST files
  size_t memory_bytes() const;  // memtables and block cache in use
  const std::filesystem::path& directory() const { return directory_; }

 private:
  [[noreturn]] void fail(const std::string& status) const;
  StoreKey decode(const rocksdb::Slice& key) const;
  std::filesystem::path directory_;
  std::shared_ptr<rocksdb::Cache> cache_;
  std::unique_ptr<rocksdb::DB> db_;
  std::unique_ptr<rocksdb::WriteBatch> pending_;
  size_t pending_puts_ = 0;
  std::unordered_set<uint64_t> pending_erased_;       // seqs (unique per key) deleted in pending_
  std::unique_ptr<rocksdb::Iterator> host_iterator_;  // reused by scan()
};

}  // namespace bloomcrawl
