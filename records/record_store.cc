#include "records/record_store.h"

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/checkpoint.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <utility>

#include "base/data_error.h"
#include "base/store_file_system.h"
#include "records/record_merge.h"

namespace bloomcrawl {
namespace {

constexpr const char* kStoreName = "records store";
// The digest index's column family (docs/content-seen.md).
constexpr const char* kDigestsFamily = "digests";
// The block cache's shards: RocksDB's default for a cache of this size is 64, each too small to
// keep a big file's index or filter block (hundreds of KB) from being evicted by data blocks.
constexpr int kCacheShardBits = 4;

std::shared_ptr<rocksdb::Cache> new_block_cache(size_t bytes) { return rocksdb::NewLRUCache(bytes, kCacheShardBits); }

rocksdb::Options store_options(size_t memory_budget, rocksdb::Env* env, const std::shared_ptr<rocksdb::Cache>& cache) {
  // Half the budget for two memtables (one filling while the other flushes), half for the cache
  // of data, index and filter blocks that lookups read.
  const size_t write_buffer = std::max<size_t>(memory_budget / 4, 64 << 10);
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = cache;
  table.cache_index_and_filter_blocks = true;  // index and filter blocks count against the budget too
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  // A lookup of an absent URL (what exact mode looks for) reads no data block; 10 bits per key
  // is 1.25 bytes a record for a 1% false-positive rate.
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  // 4 KB blocks: a lookup that misses the cache decompresses one. At 5M records (4 times the
  // cache) present lookups were 1.5 times as fast as with 16 KB blocks, for 28 bytes a URL on
  // disk instead of 25 (docs/records.md).
  table.block_size = 4 << 10;
  // Index and filter in partitions of 4 KB, the top level pinned: whole index and filter blocks of
  // compacted files (up to a megabyte each) were evicted and read again for a lookup, which made
  // a lookup of an absent URL 20 times slower at 2M records than at 1.5M (bench/records_bench.cc).
  table.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  table.partition_filters = true;
  table.metadata_block_size = 4096;
  table.pin_top_level_index_and_filter = true;
  table.format_version = 5;
  rocksdb::Options options;
  options.env = env;
  options.info_log = no_info_log();  // base/store_file_system.h: no LOG file
  options.create_if_missing = true;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  options.write_buffer_size = write_buffer;
  options.max_write_buffer_number = 2;
  // Leveled compaction: a lookup reads at most one file per level, and the update of a record at
  // its outcome replaces the admission's copy at the next compaction (docs/records.md).
  options.compaction_style = rocksdb::kCompactionStyleLevel;
  options.level_compaction_dynamic_level_bytes = true;
  options.max_bytes_for_level_base = std::max<uint64_t>(4 * write_buffer, 8 << 20);
  options.target_file_size_base = std::max<uint64_t>(write_buffer, 4 << 20);
  // LZ4 where data is rewritten soon, ZSTD at the bottom level, where nearly all of it ends up:
  // URL text of one host compresses well (bench/results/records.md).
  options.compression = best_supported_compression({rocksdb::kLZ4Compression, rocksdb::kSnappyCompression});
  options.bottommost_compression = best_supported_compression({rocksdb::kZSTD, rocksdb::kLZ4Compression});
  options.max_background_jobs = 2;
  options.max_open_files = 512;
  options.paranoid_checks = true;
  // Closing writes nothing (persist() writes what must be kept): nothing to fail on a full disk.
  options.avoid_flush_during_shutdown = true;
  // Outcomes written without a read (RecordStore::update); every open needs it to read them.
  options.merge_operator = record_outcome_merge_operator();
  return options;
}

}  // namespace

std::string record_store_directory_name(uint64_t generation) {
  std::string digits = std::to_string(generation);
  if (digits.size() < 6) digits.insert(0, 6 - digits.size(), '0');
  return "records-" + digits;
}

RecordStore::RecordStore(std::filesystem::path directory, size_t memory_budget)
    : directory_(std::move(directory)),
      mode_(Mode::kWritable),
      env_(store_env()),
      cache_(new_block_cache(std::max<size_t>(memory_budget / 2, 64 << 10))) {
  std::error_code error;
  std::filesystem::create_directories(directory_, error);
  if (error) fail("cannot create the directory: " + error.message());
  rocksdb::Options options = store_options(memory_budget, env_.get(), cache_);
  options.create_missing_column_families = true;  // a store written before the digest index
  // The digest index takes one entry per distinct body: small memtables of its own.
  rocksdb::ColumnFamilyOptions digests(options);
  digests.write_buffer_size = std::max<size_t>(options.write_buffer_size / 4, 64 << 10);
  // Nearly every look-up is of a body not seen before, which the memtable's skip list answered by
  // a full search (2/5 of the records' skip list time in a crawl's profile): a Bloom filter of the
  // memtable's keys, 2% of its size (~16 bits per ~100-byte entry), answers most of them first.
  digests.memtable_whole_key_filtering = true;
  digests.memtable_prefix_bloom_size_ratio = 0.02;
  const std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(options)}, {kDigestsFamily, digests}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  const rocksdb::Status status = rocksdb::DB::Open(options, directory_.string(), families, &handles, &db);
  if (!status.ok()) fail(status);
  db_.reset(db);
  delete handles[0];  // the default family's handle: db_ has its own
  digests_ = handles[1];
}

RecordStore::RecordStore(std::filesystem::path directory, Mode mode, const std::filesystem::path& scratch)
    : directory_(std::move(directory)), mode_(mode), env_(store_env()), cache_(new_block_cache(8 << 20)) {
  rocksdb::Options options = store_options(16 << 20, env_.get(), cache_);
  options.create_if_missing = false;
  rocksdb::DB* db = nullptr;
  rocksdb::Status status;
  if (mode == Mode::kSecondary) {
    options.max_open_files = -1;  // a secondary must keep open the files the writer may delete
    status = rocksdb::DB::OpenAsSecondary(options, directory_.string(), scratch.string(), &db);
  } else {
    status = rocksdb::DB::OpenForReadOnly(options, directory_.string(), &db);
  }
  if (!status.ok()) fail(status);
  db_.reset(db);
}

// A store that failed closes a second late: RocksDB waits that long before it retries a failed
// background flush, and the close waits for that job.
RecordStore::~RecordStore() {
  if (digests_ != nullptr) db_->DestroyColumnFamilyHandle(digests_);
}

std::unique_ptr<RecordStore> RecordStore::open_read_only(const std::filesystem::path& directory) {
  return std::unique_ptr<RecordStore>(new RecordStore(directory, Mode::kReadOnly, {}));
}

std::unique_ptr<RecordStore> RecordStore::open_secondary(const std::filesystem::path& directory,
                                                         const std::filesystem::path& scratch) {
  return std::unique_ptr<RecordStore>(new RecordStore(directory, Mode::kSecondary, scratch));
}

std::string RecordStore::failure() const { return failure_.message(directory_); }

void RecordStore::record_failure(const std::string& problem) { failure_.record(problem); }

void RecordStore::fail(const rocksdb::Status& status) { fail(status.ToString()); }

void RecordStore::fail(const std::string& problem) {
  record_failure(problem);
  throw_failure();
}

void RecordStore::throw_failure() const { failure_.raise(directory_); }

void RecordStore::throw_read_error(const std::string& problem) const {
  throw CheckpointError(directory_.string(), std::string(kStoreName) + ": " + problem);
}

void RecordStore::require_writable() const {
  if (mode_ != Mode::kWritable) throw_read_error("opened for reading only");
}

void RecordStore::make_room_for(const std::string& key) {
  // Written before the new entry joins the batch, so that a put or update that throws has
  // recorded nothing.
  if (pending_.size() + pending_digests_.size() >= kBatchedPuts && !pending_.contains(key)) flush();
}

void RecordStore::put(const UrlRecord& record) {
  require_writable();
  if (failed()) throw_failure();
  std::string value = encode_url_record(record);
  std::string key = record_key(record.url);
  make_room_for(key);
  std::lock_guard lock(pending_mu_);
  pending_.insert_or_assign(std::move(key), PendingRecord{.value = std::move(value), .outcomes = {}});
}

void RecordStore::update(std::string_view canonical_url, const RecordOutcome& outcome) {
  require_writable();
  if (failed()) throw_failure();
  std::string key = record_key(canonical_url);
  make_room_for(key);
  const auto it = pending_.find(key);  // the writing thread reads the batch without the lock
  if (it != pending_.end() && it->second.value) {
    UrlRecord record = decode(key, *it->second.value);
    apply_record_outcome(record, outcome);
    std::string value = encode_url_record(record);
    std::lock_guard lock(pending_mu_);
    it->second.value = std::move(value);
    return;
  }
  std::string operand = encode_record_outcome(outcome);
  std::lock_guard lock(pending_mu_);
  pending_[std::move(key)].outcomes.push_back(std::move(operand));
}

UrlRecord RecordStore::resolve(std::string_view key, const PendingRecord& pending,
                               const std::string_view* stored) const {
  if (pending.value) return decode(key, *pending.value);
  const std::string_view url = url_of_record_key(key);
  std::optional<UrlRecord> record;
  if (stored != nullptr) record = decode(key, *stored);
  try {
    for (const std::string& operand : pending.outcomes) apply_record_operand(record, url, operand);
  } catch (const CheckpointError& e) {
    throw_read_error(e.what());
  }
  return std::move(*record);  // a pending entry without a value holds an operand
}

void RecordStore::put_first_capture(std::string_view payload_sha1, const FirstCapture& capture) {
  require_writable();
  if (failed()) throw_failure();
  std::string key(payload_sha1);
  if (pending_.size() + pending_digests_.size() >= kBatchedPuts && !pending_digests_.contains(key)) flush();
  std::lock_guard lock(pending_mu_);
  pending_digests_.insert_or_assign(std::move(key), encode_first_capture(capture));
}

std::optional<FirstCapture> RecordStore::first_capture(std::string_view payload_sha1) {
  const std::string key(payload_sha1);
  {
    std::lock_guard lock(pending_mu_);
    const auto it = pending_digests_.find(key);
    if (it != pending_digests_.end()) return decode_first_capture(it->second, directory_.string());
  }
  if (digests_ == nullptr) return std::nullopt;
  std::string value;
  const rocksdb::Status status = db_->Get(rocksdb::ReadOptions(), digests_, key, &value);
  if (status.IsNotFound()) return std::nullopt;
  if (!status.ok()) throw_read_error(status.ToString());
  try {
    return decode_first_capture(value, directory_.string());
  } catch (const CheckpointError& e) {
    throw_read_error(e.what());
  }
}

bool RecordStore::write_pending() {
  if (pending_.empty() && pending_digests_.empty()) return true;
  // In key order: the memtable's skip list then finds each key's place from the one before.
  std::vector<const std::pair<const std::string, PendingRecord>*> sorted;
  sorted.reserve(pending_.size());
  for (const auto& entry : pending_) sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  rocksdb::WriteBatch batch;
  for (const auto* entry : sorted) {
    const PendingRecord& pending = entry->second;
    // A record put is written whole; outcomes on a record not in the batch, as merge operands.
    rocksdb::Status status;
    if (pending.value) status = batch.Put(entry->first, *pending.value);
    for (size_t i = 0; i < pending.outcomes.size() && status.ok(); ++i) {
      status = batch.Merge(entry->first, pending.outcomes[i]);
    }
    if (!status.ok()) {
      record_failure(status.ToString());
      return false;
    }
  }
  for (const auto& [key, value] : pending_digests_) {
    const rocksdb::Status status = batch.Put(digests_, key, value);
    if (!status.ok()) {
      record_failure(status.ToString());
      return false;
    }
  }
  rocksdb::WriteOptions write;
  write.disableWAL = true;  // docs/records.md: the journal makes the records durable
  const rocksdb::Status status = db_->Write(write, &batch);
  if (!status.ok()) {
    record_failure(status.ToString());  // the batch is kept: lookups and scans still see it
    return false;
  }
  std::lock_guard lock(pending_mu_);
  pending_.clear();
  pending_digests_.clear();
  return true;
}

void RecordStore::flush() {
  require_writable();
  if (failed() || !write_pending()) throw_failure();
}

void RecordStore::persist() {
  flush();
  rocksdb::FlushOptions options;
  options.wait = true;
  const rocksdb::Status status = db_->Flush(options, {db_->DefaultColumnFamily(), digests_});
  if (!status.ok()) fail(status);
}

UrlRecord RecordStore::decode(std::string_view key, std::string_view value) const {
  try {
    return decode_url_record(url_of_record_key(key), value);
  } catch (const CheckpointError& e) {
    throw_read_error(e.what());
  }
}

std::optional<UrlRecord> RecordStore::get(std::string_view canonical_url) { return get_many({canonical_url}).front(); }

std::vector<std::optional<UrlRecord>> RecordStore::get_many(const std::vector<std::string_view>& urls) {
  std::vector<std::optional<UrlRecord>> results(urls.size());
  std::vector<std::string> keys;
  keys.reserve(urls.size());
  for (const std::string_view url : urls) keys.push_back(record_key(url));
  std::vector<size_t> from_store;  // indexes of the URLs whose record the pending batch does not hold
  std::unordered_map<size_t, PendingRecord> outcomes;  // of those, the ones with outcomes pending
  {
    std::lock_guard lock(pending_mu_);
    for (size_t i = 0; i < keys.size(); ++i) {
      const auto it = pending_.find(keys[i]);
      if (it == pending_.end()) {
        from_store.push_back(i);
      } else if (it->second.value) {
        results[i] = decode(keys[i], *it->second.value);
      } else {
        from_store.push_back(i);
        outcomes.emplace(i, it->second);
      }
    }
  }
  if (from_store.empty()) return results;
  std::vector<rocksdb::Slice> slices;
  slices.reserve(from_store.size());
  for (const size_t i : from_store) slices.emplace_back(keys[i]);
  std::vector<rocksdb::PinnableSlice> values(from_store.size());
  std::vector<rocksdb::Status> statuses(from_store.size());
  db_->MultiGet(rocksdb::ReadOptions(), db_->DefaultColumnFamily(), slices.size(), slices.data(), values.data(),
                statuses.data());
  for (size_t j = 0; j < from_store.size(); ++j) {
    const size_t i = from_store[j];
    if (!statuses[j].ok() && !statuses[j].IsNotFound()) throw_read_error(statuses[j].ToString());
    const std::string_view stored(values[j].data(), values[j].size());
    const auto pending = outcomes.find(i);
    if (pending != outcomes.end()) {
      results[i] = resolve(keys[i], pending->second, statuses[j].ok() ? &stored : nullptr);
    } else if (statuses[j].ok()) {
      results[i] = decode(keys[i], stored);
    }
  }
  return results;
}

void RecordStore::scan_all(const std::function<bool(const UrlRecord&)>& visit) {
  // The pending batch (at most kBatchedPuts records, or what a failed write kept), in key order,
  // is merged into the pass; its records are newer than the store's.
  std::vector<std::pair<std::string, PendingRecord>> pending;
  {
    std::lock_guard lock(pending_mu_);
    pending.assign(pending_.begin(), pending_.end());
  }
  std::sort(pending.begin(), pending.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  rocksdb::ReadOptions read;
  read.readahead_size = size_t{2} << 20;  // sequential
  read.fill_cache = false;
  const std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read));
  auto next_pending = pending.begin();
  // Visits the pending records before `key` (all that are left when it is null); false when
  // `visit` asked to stop.
  auto visit_pending_before = [&](const rocksdb::Slice* key) {
    for (; next_pending != pending.end() && (key == nullptr || rocksdb::Slice(next_pending->first).compare(*key) < 0);
         ++next_pending) {
      if (!visit(resolve(next_pending->first, next_pending->second, nullptr))) return false;
    }
    return true;
  };
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const rocksdb::Slice key = it->key();
    if (!visit_pending_before(&key)) return;
    const std::string_view key_view(key.data(), key.size());
    const rocksdb::Slice value = it->value();
    const std::string_view stored(value.data(), value.size());
    if (next_pending != pending.end() && key_view == next_pending->first) {
      if (!visit(resolve(next_pending->first, next_pending->second, &stored))) return;
      ++next_pending;
      continue;
    }
    if (!visit(decode(key_view, stored))) return;
  }
  if (!it->status().ok()) throw_read_error(it->status().ToString());
  visit_pending_before(nullptr);
}

void RecordStore::checkpoint_to(const std::filesystem::path& directory) {
  flush();
  rocksdb::Checkpoint* raw = nullptr;
  rocksdb::Status status = rocksdb::Checkpoint::Create(db_.get(), &raw);
  if (!status.ok()) fail(status);
  const std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  // log_size_for_flush 0: always flush, since without a WAL the memtable exists nowhere else.
  status = checkpoint->CreateCheckpoint(directory.string(), /*log_size_for_flush=*/0);
  if (!status.ok()) fail(status);
}

void RecordStore::clone(const std::filesystem::path& checkpoint, const std::filesystem::path& live) {
  clone_store_checkpoint(checkpoint, live, kStoreName);
}

void RecordStore::verify(const std::filesystem::path& checkpoint) {
  const std::shared_ptr<rocksdb::Env> env = store_env();
  verify_store_checkpoint(store_options(0, env.get(), new_block_cache(64 << 10)), checkpoint, kStoreName);
}

uint64_t RecordStore::disk_bytes() const {
  uint64_t bytes = 0;
  db_->GetIntProperty("rocksdb.total-sst-files-size", &bytes);
  return bytes;
}

bool RecordStore::compacting() const {
  uint64_t running = 0;
  uint64_t pending = 0;
  db_->GetIntProperty("rocksdb.num-running-compactions", &running);
  db_->GetIntProperty("rocksdb.compaction-pending", &pending);
  return running > 0 || pending > 0;
}

size_t RecordStore::memory_bytes() const {
  uint64_t memtables = 0;
  db_->GetIntProperty("rocksdb.cur-size-all-mem-tables", &memtables);
  return memtables + cache_->GetUsage();
}

}  // namespace bloomcrawl
