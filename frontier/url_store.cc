#include "frontier/url_store.h"

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/memtablerep.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/checkpoint.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>

#include "base/data_error.h"
#include "base/store_file_system.h"

namespace bloomcrawl {
namespace {

constexpr size_t kKeyBytes = 16;

void put_be(char* out, uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i, value >>= 8) out[i] = static_cast<char>(value & 0xff);
}
uint64_t get_be(const char* in, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value = (value << 8) | static_cast<uint8_t>(in[i]);
  return value;
}

struct EncodedKey {
  char bytes[kKeyBytes];
  explicit EncodedKey(const StoreKey& key) {
    put_be(bytes, key.host, 4);
    put_be(bytes + 4, key.depth, 4);
    put_be(bytes + 8, key.seq, 8);
  }
  rocksdb::Slice slice() const { return {bytes, kKeyBytes}; }
};

rocksdb::Options store_options(size_t memory_budget, rocksdb::Env* env, const std::shared_ptr<rocksdb::Cache>& cache) {
  // Half the budget for two memtables (one filling while the other flushes), half for the cache
  // of data and index blocks that range scans read.
  const size_t write_buffer = std::max<size_t>(memory_budget / 4, 64 << 10);
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = cache;
  table.cache_index_and_filter_blocks = true;  // index blocks count against the budget too
  table.block_size = 16 << 10;
  rocksdb::Options options;
  options.env = env;
  options.info_log = no_info_log();  // base/store_file_system.h: no LOG file
  options.create_if_missing = true;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  options.write_buffer_size = write_buffer;
  options.max_write_buffer_number = 2;
  // Memtables hashed by host (the key's first 4 bytes), a small skip list per host: a push into
  // one global skip list of millions of keys was half the push cost in cache misses. Every scan
  // stays inside one host's prefix, which is what prefix seeks serve.
  // The per-host skip lists are 12 levels high, not RocksDB's default 4: a crawl of a few big
  // sites puts a memtable's worth of keys (hundreds of thousands) in one host's list, where 4
  // levels of branching 4 leave thousands of nodes to walk per insert and seek (a crawl of three
  // hosts spent a quarter of its CPU in that walk). The extra levels cost a pointer per 3 nodes.
  options.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(4));
  options.memtable_factory.reset(rocksdb::NewHashSkipListRepFactory(
      std::clamp<size_t>(write_buffer / 64, 1024, size_t{1} << 20), /*skiplist_height=*/12,
      /*skiplist_branching_factor=*/4));
  options.allow_concurrent_memtable_write = false;
  // Universal (tiered) compaction: pushes go to random hosts, so every flushed file spans the
  // whole key range and leveled compaction rewrote all of level 1 per flush (write stalls half
  // the time at 20M URLs). Universal merges whole sorted runs: less CPU per URL pushed, fewer
  // stalls, and the few runs a seek visits stay bounded by the triggers below.
  options.compaction_style = rocksdb::kCompactionStyleUniversal;
  options.level0_file_num_compaction_trigger = 4;
  options.level0_slowdown_writes_trigger = 30;
  options.level0_stop_writes_trigger = 40;
  // LZ4 everywhere: every refill decompresses a block, and ZSTD's (a fresh decompression context
  // per block) was a quarter of a pop; ZSTD's smaller files are not worth it below 50 bytes/URL.
  options.compression = best_supported_compression({rocksdb::kLZ4Compression, rocksdb::kSnappyCompression});
  options.max_background_jobs = 2;
  options.max_open_files = 512;
  options.paranoid_checks = true;
  // The live store is scratch once the crawl ends (its checkpoints flush what they copy), so
  // closing it writes nothing: no time spent at the end, and nothing to fail on a full disk.
  options.avoid_flush_during_shutdown = true;
  return options;
}

// The pending batch's operations by encoded key: the value put, or nullopt for a delete.
class PendingOperations : public rocksdb::WriteBatch::Handler {
 public:
  void Put(const rocksdb::Slice& key, const rocksdb::Slice& value) override { ops[key.ToString()] = value.ToString(); }
  void Delete(const rocksdb::Slice& key) override { ops[key.ToString()] = std::nullopt; }
  std::map<std::string, std::optional<std::string>> ops;
};

}  // namespace

UrlStore::UrlStore(std::filesystem::path directory, size_t memory_budget)
    : directory_(std::move(directory)),
      env_(store_env()),
      cache_(rocksdb::NewLRUCache(std::max<size_t>(memory_budget / 2, 64 << 10))) {
  std::error_code error;
  std::filesystem::create_directories(directory_, error);
  if (error) fail("cannot create the directory: " + error.message());
  rocksdb::DB* db = nullptr;
  const rocksdb::Status status =
      rocksdb::DB::Open(store_options(memory_budget, env_.get(), cache_), directory_.string(), &db);
  if (!status.ok()) fail(status);
  db_.reset(db);
  pending_ = std::make_unique<rocksdb::WriteBatch>();
}

UrlStore::~UrlStore() {
  host_iterator_.reset();  // before the database it reads
}

std::string UrlStore::failure() const { return failure_.message(directory_); }

void UrlStore::record_failure(const std::string& problem) { failure_.record(problem); }

void UrlStore::fail(const rocksdb::Status& status) { fail(status.ToString()); }

void UrlStore::fail(const std::string& problem) {
  record_failure(problem);
  throw_failure();
}

void UrlStore::throw_failure() const { failure_.raise(directory_); }

void UrlStore::put(const StoreKey& key, std::string_view url) {
  if (failed()) throw_failure();
  // Written before this key joins the batch, so that a put that throws has queued nothing.
  if (static_cast<size_t>(pending_->Count()) >= kBatchedWrites) flush();
  const rocksdb::Status status = pending_->Put(EncodedKey(key).slice(), rocksdb::Slice(url.data(), url.size()));
  if (!status.ok()) fail(status);
  ++pending_puts_;
}

void UrlStore::erase(const StoreKey& key) {
  // A delete only touches the batch in memory; a failed write of a full batch is reported by the
  // next put, scan or checkpoint (and failure()), not by the completion that happened to fill it.
  if (pending_->Delete(EncodedKey(key).slice()).ok()) pending_erased_.insert(key.seq);
  if (!failed() && static_cast<size_t>(pending_->Count()) >= kBatchedWrites) write_pending();
}

bool UrlStore::write_pending() {
  if (pending_->Count() == 0) return true;
  rocksdb::WriteOptions write;
  write.disableWAL = true;  // docs/frontier.md: the live store is scratch between checkpoints
  const rocksdb::Status status = db_->Write(write, pending_.get());
  if (!status.ok()) {
    record_failure(status.ToString());  // the batch is kept: scan_all() still lists its URLs
    return false;
  }
  pending_->Clear();
  pending_puts_ = 0;
  pending_erased_.clear();
  // The reused iterator reads as of its last refresh, and pins that version's memtables and files
  // until the next one: refreshed with every batch, it sees the writes and pins nothing for long.
  if (host_iterator_ != nullptr) {
    const rocksdb::Status refreshed = host_iterator_->Refresh();
    if (!refreshed.ok()) {
      record_failure(refreshed.ToString());
      return false;
    }
  }
  return true;
}

void UrlStore::flush() {
  if (failed() || !write_pending()) throw_failure();
}

void UrlStore::scan(const StoreKey& from, const std::function<bool(const StoreKey&, std::string_view)>& visit) {
  if (failed()) throw_failure();
  // A pending batch of deletes only is not applied for a scan (one write per refill was a tenth of
  // a pop): the scan skips its keys instead.
  if (pending_puts_ > 0) flush();
  if (host_iterator_ == nullptr) {
    // One iterator for every host scan: creating one per refill was a sixth of a pop. No upper
    // bound (it would have to change per host): the scan stops at the first key of another host.
    rocksdb::ReadOptions read;
    read.readahead_size = 0;
    host_iterator_.reset(db_->NewIterator(read));
  }
  rocksdb::Iterator& it = *host_iterator_;
  const EncodedKey start(from);
  for (it.Seek(start.slice()); it.Valid(); it.Next()) {
    const StoreKey key = decode(it.key());
    if (key.host != from.host) return;
    if (pending_erased_.contains(key.seq)) continue;
    const rocksdb::Slice value = it.value();
    if (!visit(key, std::string_view(value.data(), value.size()))) return;
  }
  if (!it.status().ok()) fail(it.status());
}

void UrlStore::scan_all(const std::function<bool(const StoreKey&, std::string_view)>& visit) {
  // After a failed write the batch is still pending: its operations are merged into the pass.
  if (!failed()) write_pending();
  PendingOperations pending;
  if (pending_->Count() > 0 && !pending_->Iterate(&pending).ok()) fail("the pending batch cannot be read");
  rocksdb::ReadOptions read;
  read.readahead_size = size_t{2} << 20;  // sequential
  read.total_order_seek = true;           // across prefixes (hosts)
  read.fill_cache = false;
  const std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read));
  auto next_pending = pending.ops.begin();
  // Visits the pending operations before `key` (all that are left when it is null); false when
  // `visit` asked to stop.
  auto visit_pending_before = [&](const rocksdb::Slice* key) {
    for (;
         next_pending != pending.ops.end() && (key == nullptr || rocksdb::Slice(next_pending->first).compare(*key) < 0);
         ++next_pending) {
      if (next_pending->second && !visit(decode(next_pending->first), *next_pending->second)) return false;
    }
    return true;
  };
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const rocksdb::Slice key = it->key();
    if (!visit_pending_before(&key)) return;
    if (next_pending != pending.ops.end() && key == rocksdb::Slice(next_pending->first)) {
      ++next_pending;  // the batch decides: put again, or deleted
      if (const std::optional<std::string>& value = std::prev(next_pending)->second) {
        if (!visit(decode(key), *value)) return;
      }
      continue;
    }
    const rocksdb::Slice value = it->value();
    if (!visit(decode(key), std::string_view(value.data(), value.size()))) return;
  }
  if (!it->status().ok()) fail(it->status());
  visit_pending_before(nullptr);
}

StoreKey UrlStore::decode(const rocksdb::Slice& key) {
  if (key.size() != kKeyBytes) fail("key of " + std::to_string(key.size()) + " bytes, not a frontier store key");
  return StoreKey{static_cast<uint32_t>(get_be(key.data(), 4)), static_cast<uint32_t>(get_be(key.data() + 4, 4)),
                  get_be(key.data() + 8, 8)};
}

void UrlStore::checkpoint_to(const std::filesystem::path& directory) {
  if (failed()) throw_failure();
  rocksdb::Checkpoint* raw = nullptr;
  rocksdb::Status status = rocksdb::Checkpoint::Create(db_.get(), &raw);
  if (!status.ok()) fail(status);
  const std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  // log_size_for_flush 0: always flush, since without a WAL the memtable exists nowhere else.
  status = checkpoint->CreateCheckpoint(directory.string(), /*log_size_for_flush=*/0);
  if (!status.ok()) fail(status);
}

void UrlStore::clone(const std::filesystem::path& checkpoint, const std::filesystem::path& live) {
  clone_store_checkpoint(checkpoint, live, "frontier store");
}

void UrlStore::verify(const std::filesystem::path& checkpoint) {
  const std::shared_ptr<rocksdb::Env> env = store_env();
  verify_store_checkpoint(store_options(0, env.get(), rocksdb::NewLRUCache(64 << 10)), checkpoint, "frontier store");
}

uint64_t UrlStore::disk_bytes() const {
  uint64_t bytes = 0;
  db_->GetIntProperty("rocksdb.total-sst-files-size", &bytes);
  return bytes;
}

size_t UrlStore::memory_bytes() const {
  uint64_t memtables = 0;
  db_->GetIntProperty("rocksdb.cur-size-all-mem-tables", &memtables);
  return memtables + cache_->GetUsage();
}

}  // namespace bloomcrawl
