// CompactLayers: the seen filter's compact mode (SeenFilterOptions::hash_log set), behind
// SeenFilter. One active blocked Bloom layer takes new keys (the layered filter's insert-if-absent)
// and every new key's hash is appended to the hash log (hash_log.h). When the active layer is full
// it is frozen (still probed) and a fresh one takes its place, and a background job compacts the
// frozen keys, two levels tiered (compact_math.h): usually it builds them into a *run* (a static
// filter of those keys: alone, or with the last run's when that run holds one seal's keys, a
// *pair* that takes its place shard by shard) and drops the frozen layer when the run is
// switched in; when the
// runs would hold more than kMergeRatio of the *big level*'s keys (or be too many), it instead
// *merges* the big level, the runs and the frozen keys into a new big level: the big level's
// keys from the key cache the last merge kept (shard_key_files.h), the others from the log.
// Both levels are 2^s shards by the log hash's top s bits, each a StaticFilter (a fuse filter, or
// a sorted one while the filter is a few MB: static_filter.h), built one at a time: a job holds
// at most one shard's build in memory beside the filter. A merge switches the big level's shards
// one at a time and drops each run's shard once the big shards under it are switched. Lookups test the active layer,
// the frozen one, every run and the big level.
//
// FPR: the big level's 2^-f_big, max_runs() runs' 2^-f_run and two Bloom layers (active and frozen)
// stay within target_fpr at every instant (compact_math.h, split_tiered_budget).
// Thread safety: as SeenFilter. Inserts and lookups hold view_mu_ shared (one acquisition per
// batch); sealing and each switch hold it exclusively for a pointer swap, so a key inserted
// before, during or after a job is always in a layer that lookups test.
// A job or a log append that fails (I/O: a full or failing disk) leaves the layers in place, never
// losing a key, and is an error, not a limit: every insert from then on throws CheckpointError
// naming it (kFull is the memory limit's answer alone, which a crawl may go on with; a failure it
// must stop on, so that no new key is dropped), lookups go on, and after a failed append
// snapshot() throws too (a failed job leaves a state a snapshot saves, whose load runs the job
// again). Design, budget and measurements: docs/seenfilter.md.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

#include "seenfilter/compact_math.h"
#include "seenfilter/fuse_filter.h"
#include "seenfilter/hash_log.h"
#include "seenfilter/layer_bits.h"
#include "seenfilter/seen_filter.h"
#include "seenfilter/shard_key_files.h"
#include "seenfilter/static_filter.h"
#include "seenfilter/stripe_locks.h"

namespace bloomcrawl::seenfilter {

// Both levels are as few shards as keep one shard's build within kRebuildMemoryShare of the filter
// (compact_math.h, plan_shards), at most 2^kMaxShardBits (a job keeps one key file per shard
// open). Shards of the big level are fuse filters of at least this many keys: a 4-wise fuse
// filter's size factor grows below it (1.22 at 2^13 keys), so smaller ones would cost bits per
// key. A filter below about 3 MB (850k keys), where a shard of this floor would be over the share,
// is built in sorted shards instead (sorted_filter.h; docs/seenfilter.md)...
inline constexpr uint64_t kMinShardKeys = uint64_t{1} << 13;
inline constexpr uint32_t kMaxShardBits = 8;
// ... and a run's fuse shards at least this many, unless the run is smaller, and at most as many
// as the big level's: a merge drops a run's shard once the big shards under it are switched, so
// the end of a merge holds one run shard per run beyond the new level.
inline constexpr uint64_t kMinRunShardKeys = uint64_t{1} << 12;
// Runs are built 3-wise, the big level 4-wise up to 2^25 keys (big_level_arity): every new key is
// tested against every run (about 3.5 of them), so a fourth cell there costs ~3.5 cache lines per
// insert for ~0.3 bits per key (runs hold at most a quarter of the keys).
inline constexpr uint32_t kRunArity = 3;

// The shards of a big level of `keys` keys at `fingerprint_bits`, at least 2^min_bits (a level's
// shards only get finer).
ShardPlan big_shard_plan(uint64_t keys, uint32_t fingerprint_bits, uint32_t min_bits = 0);
// The shards of a run of `keys` keys built when the filter holds filter_keys keys and its big
// level will have 2^big_bits shards, at least 2^min_bits (a pair's, as the run it replaces).
ShardPlan run_shard_plan(uint64_t keys, uint64_t filter_keys, uint32_t fingerprint_bits, uint32_t big_bits,
                         uint32_t min_bits = 0);

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
  // Hashes already computed; outcomes in order, a repeat within the batch gets kSeen. Throws
  // CheckpointError once a job or a log append has failed.
  void insert_batch(std::span<const KeyHash> hashes, std::span<InsertOutcome> outcomes, Writers writers);
  void contains_batch(std::span<const KeyHash> hashes, std::span<bool> found) const;

  uint64_t size() const;
  bool full() const { return full_.load(std::memory_order_acquire); }
  std::string full_reason() const;
  void add_stats(SeenFilterStats& out, bool compute_fill) const;
  // The layers as they are now and the log position they cover; the log is made durable up to it.
  FilterSnapshot snapshot(const SeenFilterOptions& options) const;

  // Waits until no job (run build or merge) is running (tests, benchmarks, a clean shutdown).
  void wait_for_rebuild();
  // Called by the job's thread after each step ("run shard 3 built", "pair shard 3 switched",
  // "run switched", "spilled", "shard 3 switched", "rebuild done"); for crash tests.
  void set_rebuild_progress(std::function<void(std::string_view)> progress);
  // The finished jobs, in order (benchmarks: rebuild time and memory).
  struct Job {
    bool merge = false;         // or a run build
    double seconds = 0;         // wall time from its start to its last switch
    double cpu_seconds = 0;     // CPU time of its thread (a job has a thread of its own), I/O calls included
    uint64_t extra_bytes = 0;   // the most it held beside the filter (spill buffers, one shard's build)
    uint64_t filter_bytes = 0;  // the filter's bytes (compact part, frozen and active layers) at its start
  };
  std::vector<Job> jobs() const;
  uint64_t rebuilds() const;    // merges done
  uint64_t runs_built() const;  // runs built
  // Peak bytes a job held beside the filter (spill buffers, one shard's build and filter).
  uint64_t peak_rebuild_bytes() const;

 private:
  struct Active {
    std::shared_ptr<LayerBits> bits;
    alignas(64) std::atomic<uint64_t> reserved{0};
    uint64_t keys() const { return std::min(reserved.load(std::memory_order_acquire), bits->geometry().capacity); }
  };
  enum class Probe : uint8_t { kNew, kSeen, kNoRoom };

  using Shards = std::vector<FilterSnapshot::Shard>;
  // A shard as lookups read it: the filter's arrays and parameters held in the entry itself, a
  // FuseFilter::Lookup or a SortedFilter::Lookup (a probe of the big level and of every run is
  // then one dependent load shorter per filter than through the StaticFilter). Refreshed from
  // shards_ and runs_ whenever they change, under view_mu_. The entry owns its filter, so its
  // pointers never outlive the arrays they name.
  struct ShardLookup {
    // One kind or the other, not both (a level's table is read at random: its entries' size
    // counts); a SortedFilter::Lookup of no keys when there is no filter.
    std::variant<SortedFilter::Lookup, FuseFilter::Lookup> probe;
    std::shared_ptr<const StaticFilter> filter;  // null: no keys
    uint32_t rotation = 0;
  };
  // A probe's token is what it computes before it reads the filter (a sorted shard's value of the
  // key, SortedFilter::Lookup): prefetch() returns it, so a window that prefetches every key before
  // testing it does not compute it twice. A fuse shard's token is 0 (its cells' hash is one mix).
  struct LevelLookup {
    std::vector<ShardLookup> shards;  // 2^bits entries, by the log hash's top bits
    uint32_t bits = 0;
    const ShardLookup& shard(uint64_t log_hash) const { return shards[bits == 0 ? 0 : log_hash >> (64 - bits)]; }
    uint64_t token_of(uint64_t log_hash) const;
    uint64_t prefetch(uint64_t log_hash) const;  // token_of(log_hash)
    bool contains(uint64_t log_hash, uint64_t token) const;
  };
  static ShardLookup lookup_of(const FilterSnapshot::Shard& shard);
  static LevelLookup lookup_of(const Shards& shards);
  void refresh_lookups_locked();  // all of them, or none when it throws
  // A window of keys is probed in two tiers, each prefetched for the whole window before it is
  // tested: first the big level, where most present keys are, and the Bloom layers; then the runs,
  // only for the keys the first tier did not find (every absent key, few present ones).
  bool first_tier_contains(const KeyHash& hash, uint64_t log_hash, uint64_t big_token) const;
  uint64_t prefetch_first_tier(const KeyHash& hash, uint64_t log_hash, bool for_insert) const;  // the big token
  bool runs_contain(uint64_t log_hash) const;
  // A key's tokens, one per run: a filter never holds more than kMaxRuns runs (its constructor
  // refuses a snapshot of more, and a seal merges rather than add a run past max_runs).
  using RunTokens = std::array<uint64_t, kMaxRuns>;
  // With the tokens prefetch_runs() wrote for the key.
  bool runs_contain(uint64_t log_hash, const RunTokens& tokens) const;
  void prefetch_runs(uint64_t log_hash, RunTokens& tokens) const;
  bool contains_locked(const KeyHash& hash, uint64_t log_hash) const;
  struct Window;  // one window's first-tier answers (compact_layers.cc)
  // Hashes `keys` (at most one window), tests their first tier with its prefetches, and prefetches
  // the runs for the keys it did not find.
  void probe_first_tier(std::span<const KeyHash> keys, Window& window, bool for_insert) const;
  // Inserts a key the first tier did not find (the frozen layer and the big level cannot change
  // while the view is held, so only the active layer is tested again, under the key's stripe).
  template <Writers kWriters>
  Probe insert_locked(const KeyHash& hash, uint64_t log_hash, const RunTokens& run_tokens,
                      std::vector<uint64_t>& fresh);
  // Keys of an active layer made when the filter holds `keys`: max(min(initial_capacity,
  // kMinActiveKeys), a·keys), the first layer included (compact_math.h, kMinActiveKeys).
  uint64_t active_capacity(uint64_t keys) const;
  // Freezes the active layer of `generation` (unless another thread did) and starts a rebuild;
  // false when growth is refused.
  bool seal(uint32_t generation);
  // Starts the job for the frozen layer: a merge of the log's first upto_keys keys, or a run of
  // the keys after the big level's and the runs'.
  void start_rebuild_locked(uint64_t upto_keys);
  bool merge_due_locked() const;
  // Whether a run job would pair the frozen keys with the last run's: it holds no more keys than
  // the frozen layer (one seal's; a pair holds two).
  bool pairs_with_last_run_locked() const;
  // Appends the log's keys [first, upto) to `files` (spill buffers sized to the filter at the job's
  // start, counted in job.extra_bytes) and returns them.
  ShardKeyFiles fill(ShardKeyFiles files, uint64_t first, uint64_t upto, Job& job) const;
  // Builds each shard of `files` at `fingerprint_bits` (sorted filters, or fuse filters of
  // `arity`) and hands it to `built` in shard order; a file that does not hold its keys is
  // replaced by respill()'s (the log spilled again). Returns the most it held beside the filter
  // (the largest shard's keys, its build scratch and filter).
  using ShardBuilt = std::function<void(uint32_t, std::shared_ptr<const StaticFilter>)>;
  uint64_t build_shards(ShardKeyFiles& files, uint32_t fingerprint_bits, bool sorted, uint32_t arity,
                        const std::function<ShardKeyFiles()>& respill, const ShardBuilt& built);
  // Builds the log's keys [first, upto) into a run; a `pair` replaces the last run (its keys are
  // the first ones), shard by shard (switch_pair_shard), instead of adding one.
  void build_run(uint64_t first, uint64_t upto, ShardPlan plan, bool pair);
  void merge(uint64_t upto_keys, ShardPlan plan);
  void switch_shard(uint32_t shard_bits, uint32_t shard, std::shared_ptr<const StaticFilter> filter);
  void switch_pair_shard(uint32_t shard_bits, uint32_t shard, std::shared_ptr<const StaticFilter> filter);
  static void split_shards(Shards& shards, uint32_t from_bits, uint32_t to_bits);
  uint64_t runs_keys_locked() const;
  uint64_t compact_bytes_locked() const;
  void append_to_log(std::span<const uint64_t> hashes);
  void log_failed_locked(const std::exception& error);  // holds log_mu_
  void refuse_locked(std::string reason);               // growth refused (kFull from now on)
  void fail_locked(std::string reason);                 // refused, and inserts throw
  [[noreturn]] void throw_failure() const;
  void report(std::string_view step) const;
  Job start_job(bool merge) const;
  void finish_job(Job job, std::chrono::steady_clock::time_point started);

  const SeenFilterOptions options_;
  const TieredBudget budget_;
  const double bloom_share_;  // each Bloom layer's FPR share

  mutable std::shared_mutex view_mu_;  // guards the view below
  Shards shards_;                      // the big level: 2^shard_bits_ entries
  uint32_t shard_bits_ = 0;
  uint64_t compact_keys_ = 0;                // log keys the big level covers
  std::vector<FilterSnapshot::Run> runs_;    // the log keys after them, in order
  LevelLookup big_lookup_;                   // shards_ as lookups read it
  std::vector<LevelLookup> run_lookups_;     // runs_ as lookups read them
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
  std::atomic<bool> failed_{false};  // full_ because a job or an append failed
  mutable std::mutex state_mu_;      // full_reason_, progress_, jobs_
  std::string full_reason_;
  std::vector<Job> jobs_;
  std::function<void(std::string_view)> progress_;
};

}  // namespace bloomcrawl::seenfilter
