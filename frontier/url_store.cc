#include "frontier/url_store.h"

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/memtablerep.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/checkpoint.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <stdexcept>

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

rocksdb::CompressionType best_supported(std::initializer_list<rocksdb::CompressionType> wanted) {
  const std::vector<rocksdb::CompressionType> supported = rocksdb::GetSupportedCompressions();
  for (rocksdb::CompressionType type : wanted) {
    if (std::find(supported.begin(), supported.end(), type) != supported.end()) return type;
  }
  return rocksdb::kNoCompression;
}

}  // namespace

UrlStore::UrlStore(std::filesystem::path directory, size_t memory_budget) : directory_(std::move(directory)) {
  // Half the budget for two memtables (one filling while the other flushes), half for the cache
  // of data and index blocks that range scans read.
  const size_t write_buffer = std::max<size_t>(memory_budget / 4, 64 << 10);
  cache_ = rocksdb::NewLRUCache(std::max<size_t>(memory_budget / 2, 64 << 10));
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = cache_;
  table.cache_index_and_filter_blocks = true;  // index blocks count against the budget too
  table.block_size = 16 << 10;
  rocksdb::Options options;
  options.create_if_missing = true;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  options.write_buffer_size = write_buffer;
  options.max_write_buffer_number = 2;
  // Memtables hashed by host (the key's first 4 bytes), a small skip list per host: a push into
  // one global skip list of millions of keys was half the push cost in cache misses. Every scan
  // stays inside one host's prefix, which is what prefix seeks serve.
  options.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(4));
  options.memtable_factory.reset(
      rocksdb::NewHashSkipListRepFactory(std::clamp<size_t>(write_buffer / 64, 1024, size_t{1} << 20)));
  options.allow_concurrent_memtable_write = false;
  options.target_file_size_base = std::max<uint64_t>(write_buffer, 8 << 20);
  options.max_bytes_for_level_base = options.target_file_size_base * 4;
  options.compression = best_supported({rocksdb::kLZ4Compression, rocksdb::kSnappyCompression});
  options.bottommost_compression = best_supported({rocksdb::kZSTD, rocksdb::kLZ4Compression});
  options.max_background_jobs = 2;
  options.max_open_files = 512;
  options.paranoid_checks = true;
  std::error_code error;
  std::filesystem::create_directories(directory_, error);
  if (error) fail("cannot create the directory: " + error.message());
  rocksdb::DB* db = nullptr;
  const rocksdb::Status status = rocksdb::DB::Open(options, directory_.string(), &db);
  if (!status.ok()) fail(status.ToString());
  db_.reset(db);
  pending_ = std::make_unique<rocksdb::WriteBatch>();
}

UrlStore::~UrlStore() = default;

void UrlStore::fail(const std::string& status) const {
  throw std::runtime_error("frontier store " + directory_.string() + ": " + status);
}

void UrlStore::put(const StoreKey& key, std::string_view url) {
  const rocksdb::Status status = pending_->Put(EncodedKey(key).slice(), rocksdb::Slice(url.data(), url.size()));
  if (!status.ok()) fail(status.ToString());
  if (static_cast<size_t>(pending_->Count()) >= kBatchedWrites) flush();
}

void UrlStore::erase(const StoreKey& key) {
  const rocksdb::Status status = pending_->Delete(EncodedKey(key).slice());
  if (!status.ok()) fail(status.ToString());
  if (static_cast<size_t>(pending_->Count()) >= kBatchedWrites) flush();
}

void UrlStore::flush() {
  if (pending_->Count() == 0) return;
  rocksdb::WriteOptions write;
  write.disableWAL = true;  // docs/frontier.md: the live store is scratch between checkpoints
  const rocksdb::Status status = db_->Write(write, pending_.get());
  pending_->Clear();
  if (!status.ok()) fail(status.ToString());
}

void UrlStore::scan(const StoreKey& from, const std::function<bool(const StoreKey&, std::string_view)>& visit) {
  char end_bytes[4];
  put_be(end_bytes, uint64_t{from.host} + 1, 4);  // host 2^32-1 does not exist (frontier_state.cc)
  const rocksdb::Slice end(end_bytes, 4);
  scan_until(from, &end, visit);
}

void UrlStore::scan_all(const std::function<bool(const StoreKey&, std::string_view)>& visit) {
  scan_until(StoreKey{}, nullptr, visit);
}

void UrlStore::scan_until(const StoreKey& from, const rocksdb::Slice* end,
                          const std::function<bool(const StoreKey&, std::string_view)>& visit) {
  flush();
  const EncodedKey start(from);
  rocksdb::ReadOptions read;
  read.iterate_upper_bound = end;
  // A scan of one host reads a block or two; a scan of everything reads sequentially.
  read.readahead_size = end == nullptr ? size_t{2} << 20 : 0;
  read.total_order_seek = end == nullptr;  // across prefixes (hosts)
  read.fill_cache = end != nullptr;
  const std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read));
  for (it->Seek(start.slice()); it->Valid(); it->Next()) {
    const rocksdb::Slice key = it->key();
    if (key.size() != kKeyBytes) fail("key of " + std::to_string(key.size()) + " bytes, not a frontier store key");
    const StoreKey decoded{static_cast<uint32_t>(get_be(key.data(), 4)),
                           static_cast<uint32_t>(get_be(key.data() + 4, 4)), get_be(key.data() + 8, 8)};
    const rocksdb::Slice value = it->value();
    if (!visit(decoded, std::string_view(value.data(), value.size()))) return;
  }
  if (!it->status().ok()) fail(it->status().ToString());
}

void UrlStore::checkpoint_to(const std::filesystem::path& directory) {
  rocksdb::Checkpoint* raw = nullptr;
  rocksdb::Status status = rocksdb::Checkpoint::Create(db_.get(), &raw);
  if (!status.ok()) fail(status.ToString());
  const std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  // log_size_for_flush 0: always flush, since without a WAL the memtable exists nowhere else.
  status = checkpoint->CreateCheckpoint(directory.string(), /*log_size_for_flush=*/0);
  if (!status.ok()) fail(status.ToString());
}

void UrlStore::clone(const std::filesystem::path& checkpoint, const std::filesystem::path& live) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(checkpoint, error)) {
    throw std::runtime_error("frontier store " + checkpoint.string() + ": missing (not a directory)");
  }
  if (fs::exists(live, error) && fs::equivalent(checkpoint, live, error)) {
    throw std::runtime_error("frontier store " + live.string() + ": the live store cannot be the checkpoint itself");
  }
  fs::remove_all(live);
  fs::create_directories(live);
  for (const fs::directory_entry& entry : fs::directory_iterator(checkpoint)) {
    const fs::path target = live / entry.path().filename();
    if (entry.path().extension() == ".sst") {
      fs::create_hard_link(entry.path(), target);
    } else {
      fs::copy_file(entry.path(), target);
    }
  }
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
