// RecordStore: the URL records (records/url_record.h) in a RocksDB database, one per canonical URL,
// a host's records together (docs/records.md, "The store").
// Contract:
//  - put() is buffered: the pending batch (one record per URL, the newest wins) is written as one
//    RocksDB write when kBatchedPuts records are pending and at flush(). No write-ahead log: the
//    crawl's journal makes the records durable between checkpoints; persist() writes the
//    memtables out so that the directory alone holds every record (a crawl without checkpoints).
//  - update() records an outcome without reading the record (docs/records.md, "Outcome operand"):
//    applied at once to a record in the pending batch, else kept in the batch as an operand and
//    written as a RocksDB Merge, which the store's merge operator applies to the stored record.
//  - get(), get_many() and scan_all() see the pending batch (operands applied), and go on after
//    a write failure.
//  - Every RocksDB failure throws CheckpointError "DIR: records store: STATUS" and is sticky
//    (docs/records.md, "When the store fails"): from then on the store calls RocksDB for no write
//    again, and put(), flush(), persist() and checkpoint_to() throw the first failure. A put() that
//    throws has recorded nothing; the batch is cleared only after a good write. A read that fails
//    throws too, but does not make the store fail (a later read may succeed).
//  - Threads: put(), flush(), persist() and checkpoint_to() are called by one thread at a time
//    (the caller's lock); get(), get_many(), scan_all() and failure() may run on any threads
//    meanwhile. A lookup sees every put() that returned before it started.
//  - A store opened read-only (open_read_only(), open_secondary()) throws on put(), flush(),
//    persist() and checkpoint_to().
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/sticky_failure.h"
#include "records/first_capture.h"
#include "records/record_outcome.h"
#include "records/url_record.h"

namespace rocksdb {
class ColumnFamilyHandle;
class DB;
class Cache;
class Env;
class Status;
}  // namespace rocksdb

namespace bloomcrawl {

// Where the stores live (docs/records.md, "Where the store lives"): in a checkpoint directory the
// live store and generation G's copy beside frontier-G; in an output directory without one, the
// live store itself.
inline constexpr std::string_view kLiveRecordStoreDirectory = "records-live";
inline constexpr std::string_view kOutputRecordStoreDirectory = "records";
std::string record_store_directory_name(uint64_t generation);  // "records-GGGGGG" (at least 6 digits)

class RecordStore {
 public:
  // Opens the store in `directory` for writing, creating it if absent. `memory_budget` bytes bound
  // the memtables and the block cache (index and filter blocks included). I/O goes through
  // store_env() (base/store_file_system.h).
  RecordStore(std::filesystem::path directory, size_t memory_budget);
  ~RecordStore();
  RecordStore(const RecordStore&) = delete;
  RecordStore& operator=(const RecordStore&) = delete;

  // A store that is not written meanwhile (a checkpoint generation, a stopped crawl's store),
  // opened read-only. Throws CheckpointError when there is no store there.
  static std::unique_ptr<RecordStore> open_read_only(const std::filesystem::path& directory);
  // A store a running crawl may be writing (RocksDB's secondary instance: no lock taken, the
  // files it reads held open), as of what the writer has written out as SST files. `scratch` is
  // an empty directory of the reader's own for RocksDB's secondary files.
  static std::unique_ptr<RecordStore> open_secondary(const std::filesystem::path& directory,
                                                     const std::filesystem::path& scratch);

  static constexpr size_t kBatchedPuts = 1024;

  void put(const UrlRecord& record);
  // The outcome of `canonical_url`, without a read; counts as a put for the batch.
  void update(std::string_view canonical_url, const RecordOutcome& outcome);
  void flush();
  // flush(), then the memtables written out as SST files.
  void persist();

  std::optional<UrlRecord> get(std::string_view canonical_url);
  // The digest index (docs/content-seen.md): the first capture of a payload by its 20-byte SHA-1,
  // in the `digests` column family, batched, checkpointed and failing like the records. A store
  // opened for reading holds no digest index (first_capture() answers nothing).
  void put_first_capture(std::string_view payload_sha1, const FirstCapture& capture);
  std::optional<FirstCapture> first_capture(std::string_view payload_sha1);
  // One batched lookup (RocksDB MultiGet for the URLs not in the pending batch), results in the
  // order of `urls`.
  std::vector<std::optional<UrlRecord>> get_many(const std::vector<std::string_view>& urls);
  // Visits every record in key order (host by host) until `visit` returns false, in memory
  // bounded by one block and the pending batch.
  void scan_all(const std::function<bool(const UrlRecord&)>& visit);

  // A consistent copy of the store into `directory`, which must not exist: the memtable is
  // flushed and SST files are hard-linked, so only the new SST files and a few small files are
  // written. Holds every put() before the call (the batch is flushed first).
  void checkpoint_to(const std::filesystem::path& directory);
  // Makes `live` (emptied first) a writable copy of the checkpoint `checkpoint` (SST files
  // hard-linked, the small files copied). Throws CheckpointError naming what is missing.
  static void clone(const std::filesystem::path& checkpoint, const std::filesystem::path& live);
  // Reads every block of the checkpoint `checkpoint` and checks its checksum, writing nothing
  // there: a corrupted or unreadable file throws CheckpointError naming it.
  static void verify(const std::filesystem::path& checkpoint);

  // The first failure, "DIR: records store: STATUS" (empty while there is none): from any thread.
  std::string failure() const;
  uint64_t disk_bytes() const;  // live SST files
  size_t memory_bytes() const;  // memtables and block cache in use
  // Background compactions running or due: a benchmark waits for a settled store before it
  // measures lookups, whose CPU time would otherwise include the compactions'.
  bool compacting() const;
  const std::filesystem::path& directory() const { return directory_; }

 private:
  enum class Mode { kWritable, kReadOnly, kSecondary };
  RecordStore(std::filesystem::path directory, Mode mode, const std::filesystem::path& scratch);

  bool failed() const { return failure_.failed(); }
  void record_failure(const std::string& problem);
  [[noreturn]] void fail(const rocksdb::Status& status);
  [[noreturn]] void fail(const std::string& problem);
  [[noreturn]] void throw_failure() const;
  [[noreturn]] void throw_read_error(const std::string& problem) const;
  void require_writable() const;
  // Writes the pending batch: false (the failure recorded, the batch kept) when RocksDB refuses.
  bool write_pending();
  UrlRecord decode(std::string_view key, std::string_view value) const;
  // A record put, or outcomes waiting for the stored record (exactly one of the two).
  struct PendingRecord {
    std::optional<std::string> value;   // encoded record
    std::vector<std::string> outcomes;  // operands, oldest first
  };
  // The record a pending entry stands for: its value, or its operands applied to `stored` (the
  // store's value; null when the store holds none, and the first operand makes the record).
  UrlRecord resolve(std::string_view key, const PendingRecord& pending, const std::string_view* stored) const;
  // A batch slot for `key`: the batch written first when it is full and does not hold the key.
  void make_room_for(const std::string& key);

  std::filesystem::path directory_;
  Mode mode_;
  std::shared_ptr<rocksdb::Env> env_;  // outlives db_
  std::shared_ptr<rocksdb::Cache> cache_;
  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::ColumnFamilyHandle* digests_ = nullptr;  // the digest index; owned by db_ (writable stores only)
  // Records put and outcomes updated, not yet written, by key. Changed by the writing thread under
  // pending_mu_, read by lookups under it; the writer reads it without the lock (it is the only
  // one that changes it), so a RocksDB write of the batch blocks no lookup.
  mutable std::mutex pending_mu_;
  std::unordered_map<std::string, PendingRecord> pending_;
  std::unordered_map<std::string, std::string> pending_digests_;  // the digest index's, the same way
  StickyFailure failure_{"records store"};
};

}  // namespace bloomcrawl
