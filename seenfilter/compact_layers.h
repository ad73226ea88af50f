// CompactLayers: the seen filter's compact mode (SeenFilterOptions::hash_log set), behind
// SeenFilter. One active blocked Bloom layer takes new keys (the layered filter's insert-if-absent)
// and every new key's hash is appended to the hash log (hash_log.h). When the active layer is full
// it is frozen (still probed) and a fresh one takes its place, and a background thread rebuilds the
// compact static layer from the log: the hash space in 2^s shards, each a FuseFilter (fuse_filter.h)
// over its keys. Shards are rebuilt and switched one at a time, so a rebuild holds at most one
// shard's build in memory beside the filter; the frozen layer is dropped once every shard holds
// its keys. Lookups test the active layer, the frozen one and the key's shard.
//
// FPR: the shards' 2^-f plus the shares of two Bloom layers (active and frozen, each half of the
// rest) stays within target_fpr at every instant (compact_math.h, split_fpr_budget).
// Thread safety: as SeenFilter. Inserts and lookups hold view_mu_ shared (one acquisition per
// batch); sealing and each shard switch hold it exclusively for a pointer swap, so a key inserted
// before, during or after a rebuild is always in a layer that lookups test.
// A rebuild or a log append that fails (I/O) leaves the layers in place and stops growth (kFull
// with the reason), never losing a key; after a failed append, snapshot() throws CheckpointError. Design, budget and
// measurements: docs/seenfilter.md.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "seenfilter/compact_math.h"
#include "seenfilter/fuse_filter.h"
#include "seenfilter/hash_log.h"
#include "seenfilter/layer_bits.h"
#include "seenfilter/seen_filter.h"
#include "seenfilter/stripe_locks.h"

namespace bloomcrawl::seenfilter {

// Active keys per compact key when a layer seals: the rebuild reads (1 + a) / a keys per insert.
inline constexpr double kActiveRatio = 1.0 / 8.0;
// Shards hold at least this many keys (a fuse filter's size factor grows below it)...
inline constexpr uint64_t kMinShardKeys = uint64_t{1} << 16;
// ... and there are at most 2^kMaxShardBits of them (a rebuild keeps one spill file per shard open).
inline constexpr uint32_t kMaxShardBits = 8;

// log2 of the shard count for a compact layer of `keys` keys.
uint32_t shard_bits_for(uint64_t keys);

class CompactLayers {
 public:
  using Writers = SeenFilter::Writers;

  // Continues from `snapshot` (its compact part; empty for a new filter). Opens the hash log at
  // snapshot.options.hash_log, cut to snapshot.log_keys. A frozen layer in the snapshot (saved
  // during a rebuild) starts its rebuild at once.
  explicit CompactLayers(const FilterSnapshot& snapshot);
  ~CompactLayers();  // waits for a running rebuild
  CompactLayers(const CompactLayers&) = delete;
  CompactLayers& operator=(const CompactLayers&) = delete;

  InsertOutcome insert(const KeyHash& hash) {
    InsertOutcome out;
    insert_batch(std::span<const KeyHash>(&hash, 1), std::span<InsertOutcome>(&out, 1), Writers::kMany);
    return out;
  }
  bool contains(const KeyHash& hash) const;
  // Hashes already computed; outcomes in order, a repeat within the batch gets kSeen.
  void insert_batch(std::span<const KeyHash> hashes, std::span<InsertOutcome> outcomes, Writers writers);
  void contains_batch(std::span<const KeyHash> hashes, std::span<bool> found) const;

  uint64_t size() const;
  bool full() const { return full_.load(std::memory_order_acquire); }
  std::string full_reason() const;
  void add_stats(SeenFilterStats& out, bool compute_fill) const;
  // The layers as they are now and the log position they cover; the log is made durable up to it.
  FilterSnapshot snapshot(const SeenFilterOptions& options) const;

  // Waits until no rebuild is running (tests, benchmarks, a clean shutdown).
  void wait_for_rebuild();
  // Called by the rebuild thread after each durable step ("shard 3 switched"); for crash tests.
  void set_rebuild_progress(std::function<void(std::string_view)> progress);
  uint64_t rebuilds() const { return rebuilds_.load(std::memory_order_acquire); }
  // Peak bytes a rebuild held beside the filter (spill buffers, one shard's build and filter).
  uint64_t peak_rebuild_bytes() const { return peak_rebuild_bytes_.load(std::memory_order_acquire); }

 private:
  struct Active {
    std::shared_ptr<LayerBits> bits;
    alignas(64) std::atomic<uint64_t> reserved{0};
    uint64_t keys() const { return std::min(reserved.load(std::memory_order_acquire), bits->geometry().capacity); }
  };
  enum class Probe : uint8_t { kNew, kSeen, kNoRoom };

  bool shards_contain(uint64_t log_hash) const;
  bool contains_locked(const KeyHash& hash, uint64_t log_hash) const;
  void prefetch_locked(const KeyHash& hash, bool for_insert) const;
  template <Writers kWriters>
  Probe insert_locked(const KeyHash& hash, std::vector<uint64_t>& fresh);
  // Freezes the active layer of `generation` (unless another thread did) and starts a rebuild;
  // false when growth is refused.
  bool seal(uint32_t generation);
  void start_rebuild_locked(uint64_t upto_keys);
  void rebuild(uint64_t upto_keys, uint32_t shard_bits);
  void switch_shard(uint32_t shard_bits, uint32_t shard, std::shared_ptr<const FuseFilter> filter);
  uint64_t compact_bytes_locked() const;
  void append_to_log(std::span<const uint64_t> hashes);
  void refuse_locked(std::string reason);
  void report(std::string_view step) const;

  const SeenFilterOptions options_;
  const FprBudget budget_;
  const double bloom_share_;  // each Bloom layer's FPR share

  mutable std::shared_mutex view_mu_;          // guards the view below
  std::vector<FilterSnapshot::Shard> shards_;  // 2^shard_bits_ entries
  uint32_t shard_bits_ = 0;
  uint64_t compact_keys_ = 0;                // log keys the shards cover
  std::shared_ptr<const LayerBits> frozen_;  // being rebuilt into the shards; null otherwise
  uint64_t frozen_keys_ = 0;
  std::unique_ptr<Active> active_;
  uint32_t next_layer_index_ = 0;  // the next Bloom layer's (mod 128: salts its probes); the seal generation

  mutable seenfilter::StripeLocks stripes_;
  mutable std::mutex log_mu_;
  mutable HashLogWriter log_;
  bool log_failed_ = false;  // guarded by log_mu_
  std::string log_error_;    // guarded by log_mu_

  std::mutex seal_mu_;  // one seal at a time; joins the previous rebuild
  std::thread rebuild_thread_;
  std::atomic<bool> full_{false};
  mutable std::mutex state_mu_;  // full_reason_, progress_
  std::string full_reason_;
  std::function<void(std::string_view)> progress_;
  std::atomic<uint64_t> rebuilds_{0};
  std::atomic<uint64_t> peak_rebuild_bytes_{0};
};

}  // namespace bloomcrawl::seenfilter
