// SeenFilter: a scalable Bloom filter (Almeida, Baquero, Preguica, Hutchison 2007) answering
// "have we seen this key?" with no false negatives and a bounded false-positive rate.
//
// Layers grow geometrically in capacity (growth_factor) while their error shares tighten
// geometrically (tightening_ratio), so the compounded FPR stays <= target_fpr however far the set
// grows. Each layer is a blocked Bloom filter: all probes of a key sit in one 64-byte cache line.
// A key is hashed once (XXH3-128) and all probes of all layers are derived from that hash.
//
// Thread safety: every method may be called from any number of threads at once. try_insert is
// insert-if-absent: of several concurrent inserts of one key exactly one gets kNew. Readers take
// no lock; layers are only ever appended. Growth beyond memory_limit_bytes is refused: the filter
// keeps answering and inserts of absent keys report kFull (see full_reason()). A compact filter
// (hash_log set) whose hash log or background job fails on I/O throws CheckpointError from every
// insert from then on instead: an error to stop on, never a reason to drop keys as kFull.
// Math, defaults and estimators: docs/seenfilter.md. Checkpoints: seenfilter/checkpoint.h.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "seenfilter/key_hash.h"
#include "seenfilter/layer_bits.h"
#include "seenfilter/static_filter.h"
#include "seenfilter/stripe_locks.h"

namespace bloomcrawl {

enum class InsertOutcome : uint8_t {
  kNew,   // the key was absent and is now recorded
  kSeen,  // the key (or a false positive) was already there
  kFull,  // the key was absent but the memory limit forbids a new layer: not recorded
};

const char* to_string(InsertOutcome outcome);

struct SeenFilterOptions {
  uint64_t initial_capacity = uint64_t{1} << 20;  // keys in the first layer
  double target_fpr = 1e-6;                       // compounded over all layers
  double growth_factor = 2.0;                     // capacity ratio of successive layers, >= 1
  // FPR ratio of successive layers, in [0, 1). 0 declares a right-sized filter: one layer of
  // initial_capacity keys with the whole target_fpr, no growth (inserts past it report kFull).
  double tightening_ratio = 0.9;
  uint64_t memory_limit_bytes = uint64_t{1} << 30;  // bit arrays of all layers together
  // Empty: the layered filter above. Set: compact mode (seenfilter/compact_layers.h), every new
  // key's hash appended to a hash log at this path, sealed layers rebuilt into one static compact
  // layer; growth_factor and tightening_ratio are then unused. Not part of the saved parameters:
  // a checkpoint's loader sets it to the log beside the checkpoint.
  std::filesystem::path hash_log;

  // Throws std::invalid_argument naming the offending option and its value.
  void validate() const;
};

struct LayerStats {
  std::string kind = "bloom";  // "bloom" (blocked Bloom layer), "compact" (the big level's fuse shards) or "run"
  uint32_t index = 0;
  uint64_t capacity = 0;
  uint64_t keys = 0;
  uint64_t bytes = 0;
  uint32_t probes = 0;
  double bits_per_key = 0;   // bits of the layer per key of its capacity
  double fill = -1;          // fraction of bits set; -1 when not computed
  double target_fpr = 0;     // this layer's share of the filter's target
  double estimated_fpr = 0;  // at its current key count
  bool sealed = false;
};

struct SeenFilterStats {
  uint64_t keys = 0;  // inserts that returned kNew (including those before a checkpoint load)
  uint64_t bytes = 0;
  double bits_per_key = 0;   // all bits over keys (0 while empty)
  double estimated_fpr = 0;  // chance that a new key would be reported kSeen now
  // Expected number of truly new keys so far wrongly reported kSeen ("pages wrongly taken as
  // seen"): the sum of the estimated FPR at the moment of each kNew insert.
  double estimated_false_positives = 0;
  bool full = false;
  std::string full_reason;
  std::vector<LayerStats> layers;
};

// Layers of a filter frozen at one instant. Sealed layers are shared with the live filter
// (they are immutable); the active layer is a private copy. Cheap to take, safe to keep.
struct FilterSnapshot {
  struct Layer {
    std::shared_ptr<const seenfilter::LayerBits> bits;
    uint64_t keys = 0;
  };
  // Compact mode: a shard of the compact layer; the key's log hash, rotated left by `rotation`,
  // is looked up in `filter` (null: no keys yet).
  struct Shard {
    std::shared_ptr<const seenfilter::StaticFilter> filter;
    uint32_t rotation = 0;
  };
  // Compact mode: a run, the log keys one seal froze, or two (a pair), right after the big
  // level's and the earlier runs', in 2^s shards of its own; a shard without a filter was covered
  // by a merge. During a pair build the last run's shards are its own or the pair's (which also
  // hold the frozen layer's keys of their range); `keys` counts its own.
  struct Run {
    std::vector<Shard> shards;
    uint64_t keys = 0;
  };
  SeenFilterOptions options;
  // Layered: every layer. Compact mode: the Bloom layers, the frozen one (being compacted) if
  // any, then the active one.
  std::vector<Layer> layers;
  std::vector<Shard> shards;  // compact mode: the big level, 2^s entries, by the log hash's top s bits
  std::vector<Run> runs;      // compact mode: in log order
  uint64_t compact_keys = 0;  // compact mode: log keys the big level holds (the first ones)
  uint64_t log_keys = 0;      // compact mode: keys in the hash log (all of the filter's)
};

namespace seenfilter {
class CompactLayers;
}

class SeenFilter {
 public:
  static constexpr uint32_t kMaxLayers = 128;

  explicit SeenFilter(SeenFilterOptions options = {});
  // Continues from a snapshot (e.g. one read back from a checkpoint); validates it.
  explicit SeenFilter(const FilterSnapshot& snapshot);
  SeenFilter(const SeenFilter&) = delete;
  SeenFilter& operator=(const SeenFilter&) = delete;
  ~SeenFilter();

  InsertOutcome try_insert(std::string_view key) { return try_insert_hashed(hash_and_prefetch(key, true)); }
  // True iff the key was not in the filter before (outcome == kNew).
  bool insert(std::string_view key) { return try_insert(key) == InsertOutcome::kNew; }
  bool contains(std::string_view key) const { return contains_hashed(hash_and_prefetch(key, false)); }

  // Who may insert while an insert_batch call runs. kOne promises that no other thread inserts or
  // takes a snapshot meanwhile (lookups may run): a single-threaded filter like `bloomcrawl
  // dedup` then skips the per-key stripe lock. Breaking the promise can lose a key's bits.
  enum class Writers { kMany, kOne };

  // A page of links at once: hashes all keys, prefetches their cache lines, then probes.
  // Keys are inserted in order, so a repeat later in the same batch gets kSeen.
  void insert_batch(std::span<const std::string_view> keys, std::span<InsertOutcome> outcomes,
                    Writers writers = Writers::kMany);
  void contains_batch(std::span<const std::string_view> keys, std::span<bool> found) const;

  // For callers that already hold the key's hash (KeyHash from hash_key()).
  InsertOutcome try_insert_hashed(const KeyHash& hash);
  bool contains_hashed(const KeyHash& hash) const;

  uint64_t size() const;  // keys recorded
  bool full() const;
  std::string full_reason() const;
  const SeenFilterOptions& options() const { return options_; }
  // compute_fill scans every bit (O(bytes)); leave it off for frequent progress reports.
  SeenFilterStats stats(bool compute_fill = true) const;

  // Does not block inserters; contains every key whose insert returned before the call, and
  // may contain some inserted during it. A layer's key count is read after its copy, so it is
  // never below the keys whose bits the copy holds (a restored layer never overfills).
  FilterSnapshot snapshot() const;

  // Compact mode's layers (rebuild control and figures for tests and benchmarks); null when layered.
  seenfilter::CompactLayers* compact_layers() const { return compact_.get(); }

 private:
  // A layer is sealed (its bits written for good) once a later layer exists: next_layer()
  // publishes one only after every insert that reserved a slot here has set its bits.
  struct LiveLayer {
    std::shared_ptr<seenfilter::LayerBits> bits;    // read by every probe: kept off the counter's line
    alignas(64) std::atomic<uint64_t> reserved{0};  // slots handed out (may overshoot capacity)
    uint64_t keys() const { return std::min(reserved.load(std::memory_order_acquire), bits->geometry().capacity); }
  };

  uint32_t layer_count() const { return layer_count_.load(std::memory_order_acquire); }
  LiveLayer* layer(uint32_t i) const { return layers_[i].load(std::memory_order_acquire); }
  // The layer after `index`, creating it if needed; nullptr when growth is refused.
  LiveLayer* next_layer(uint32_t index);
  // Publishes a layer holding `keys` keys; the caller holds growth_mu_.
  LiveLayer* append_layer_locked(std::shared_ptr<seenfilter::LayerBits> bits, uint64_t keys);
  // The key's block in each of the first `layers` layers, and with `for_insert` the stripe an
  // insert into the last of them takes.
  void prefetch(const KeyHash& hash, uint32_t layers, bool for_insert) const;
  KeyHash hash_and_prefetch(std::string_view key, bool for_insert) const;
  template <Writers kWriters>
  InsertOutcome insert_hashed(const KeyHash& hash);
  // Hashes keys a window at a time and passes each window's hashes to consume(start, hashes).
  template <typename Consume>
  static void hash_windows(std::span<const std::string_view> keys, size_t outputs, Consume&& consume);
  template <typename Probe>
  void probe_batch(std::span<const std::string_view> keys, size_t outputs, bool for_insert, Probe&& probe) const;

  SeenFilterOptions options_;
  std::array<std::atomic<LiveLayer*>, kMaxLayers> layers_{};
  std::atomic<uint32_t> layer_count_{0};
  mutable seenfilter::StripeLocks stripes_;
  std::atomic<bool> full_{false};

  mutable std::mutex growth_mu_;  // guards the members below; never taken on the hot path
  std::vector<std::unique_ptr<LiveLayer>> owned_layers_;
  uint64_t bytes_ = 0;
  std::string full_reason_;

  std::unique_ptr<seenfilter::CompactLayers> compact_;  // compact mode: all calls go there
};

}  // namespace bloomcrawl
