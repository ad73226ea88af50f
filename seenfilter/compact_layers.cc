#include "seenfilter/compact_layers.h"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <new>
#include <optional>
#include <stdexcept>

#include "base/data_error.h"
#include "seenfilter/blocked_bloom_math.h"
#include "seenfilter/checkpoint_format.h"
#include "seenfilter/fpr_estimate.h"
#include "seenfilter/shard_key_files.h"

namespace bloomcrawl::seenfilter {
namespace fs = std::filesystem;

namespace {

// Keys probed per hold of the view lock, hashed and prefetched together (as SeenFilter's batches).
constexpr size_t kWindow = 32;
static_assert((uint32_t{1} << kMaxShardBits) <= kMaxManifestShards, "a manifest holds every shard of a level");
// Hashes a job gathers per shard before writing them to the shard's key file: from 4 to 4096,
// as many as keep the buffers of all shards within kSpillBufferShare of the filter. Larger writes
// cost the kernel less per key (fewer, larger page-cache folios): 14.5 against 22 ns per key
// written and read back at 4096 and 512 (10M keys into 256 files, this machine). Batches below 64
// only happen on filters under about 1 MB, whose jobs spill few keys: a write per 4 keys of them
// costs less than the buffers that would break the memory share.
constexpr size_t kMinSpillBatch = 4;
constexpr size_t kMaxSpillBatch = 4096;
constexpr double kSpillBufferShare = 0.03;

size_t spill_batch(uint64_t filter_bytes, uint32_t shard_bits) {
  size_t batch = kMaxSpillBatch;
  while (batch > kMinSpillBatch && static_cast<double>((batch << shard_bits) * sizeof(uint64_t)) >
                                       kSpillBufferShare * static_cast<double>(filter_bytes)) {
    batch /= 2;
  }
  return batch;
}

// A shard is built as 2^p fuse partitions of at most this many keys, by its rotated hashes' top
// bits: a build is random access into a partition's cells, so it is cheaper the more of them the
// caches hold. Measured per key built (one partition, this machine): 43 ns at 2^17 keys, 49 at
// 2^18, 76 at 2^20, 142 at 4M (sorted first, as above 2^21 keys), the size of a big shard at 1e9
// keys. Partitions of 2^17-2^18 keys cost a size factor of about 1.16-1.17 against 1.125-1.155
// for shards of 390k-4M keys (+0.4-0.9 bits per key at 100M-1e9; docs/seenfilter.md).
constexpr uint64_t kMaxBuildPartitionKeys = uint64_t{1} << 18;

uint32_t build_partition_bits(uint64_t keys) {
  uint32_t bits = 0;
  while ((keys >> bits) > kMaxBuildPartitionKeys) ++bits;
  return bits;
}

uint64_t insert_stripe(uint64_t block, uint32_t layer_index) { return (block << 7) | layer_index; }

// Bytes of the distinct filters of `shards` (consecutive entries may share one).
uint64_t shards_bytes(const std::vector<FilterSnapshot::Shard>& shards) {
  uint64_t bytes = 0;
  const StaticFilter* previous = nullptr;
  for (const FilterSnapshot::Shard& s : shards) {
    if (s.filter && s.filter.get() != previous) bytes += s.filter->bytes();
    previous = s.filter.get();
  }
  return bytes;
}

bool valid_shard_count(size_t n) { return std::has_single_bit(n) && n <= (size_t{1} << kMaxShardBits); }

// Bytes of the compact layer a rebuild of `keys` keys produces (the memory limit's estimate).
uint64_t compact_bytes_for(uint64_t keys, uint32_t fingerprint_bits) {
  const ShardPlan plan = big_shard_plan(keys, fingerprint_bits);
  const uint64_t shard_keys = std::max<uint64_t>(keys >> plan.bits, 1);
  const double bits_per_key = plan.sorted ? sorted_bits_per_key(fingerprint_bits)
                                          : fuse_cells_per_key(shard_keys, big_level_arity(keys)) * fingerprint_bits;
  return static_cast<uint64_t>(std::ceil(static_cast<double>(keys) * bits_per_key / 8.0));
}

}  // namespace

ShardPlan big_shard_plan(uint64_t keys, uint32_t fingerprint_bits, uint32_t min_bits) {
  return plan_shards(keys, keys, fingerprint_bits, kMinShardKeys, min_bits, kMaxShardBits);
}

ShardPlan run_shard_plan(uint64_t keys, uint64_t filter_keys, uint32_t fingerprint_bits, uint32_t big_bits,
                         uint32_t min_bits) {
  return plan_shards(keys, filter_keys, fingerprint_bits, kMinRunShardKeys, min_bits, big_bits);
}

CompactLayers::ShardLookup CompactLayers::lookup_of(const FilterSnapshot::Shard& shard) {
  ShardLookup entry{.filter = shard.filter, .rotation = shard.rotation};
  if (shard.filter) {
    if (const FuseFilter* fuse = shard.filter->fuse()) entry.probe = fuse->lookup();
    if (const SortedFilter* sorted = shard.filter->sorted()) entry.probe = sorted->lookup();
  }
  return entry;
}

CompactLayers::LevelLookup CompactLayers::lookup_of(const Shards& shards) {
  LevelLookup level;
  level.bits = static_cast<uint32_t>(std::countr_zero(shards.size()));
  level.shards.reserve(shards.size());
  for (const FilterSnapshot::Shard& s : shards) level.shards.push_back(lookup_of(s));
  return level;
}

// Built aside and then moved in, so a failed allocation leaves the tables as they were: they own
// their filters, so an old table still finds every key the view held before the change.
void CompactLayers::refresh_lookups_locked() {
  LevelLookup big = lookup_of(shards_);
  std::vector<LevelLookup> runs;
  runs.reserve(runs_.size());
  for (const FilterSnapshot::Run& run : runs_) runs.push_back(lookup_of(run.shards));
  big_lookup_ = std::move(big);
  run_lookups_ = std::move(runs);
}

uint64_t CompactLayers::LevelLookup::token_of(uint64_t log_hash) const {
  const ShardLookup& s = shard(log_hash);
  const auto* sorted = std::get_if<SortedFilter::Lookup>(&s.probe);
  return sorted == nullptr ? 0 : sorted->value_of(std::rotl(log_hash, static_cast<int>(s.rotation)));
}

uint64_t CompactLayers::LevelLookup::prefetch(uint64_t log_hash) const {
  const ShardLookup& s = shard(log_hash);
  const uint64_t h = std::rotl(log_hash, static_cast<int>(s.rotation));
  if (const auto* fuse = std::get_if<FuseFilter::Lookup>(&s.probe)) {
    fuse->prefetch(h);
    return 0;
  }
  return std::get_if<SortedFilter::Lookup>(&s.probe)->prefetch(h);
}

bool CompactLayers::LevelLookup::contains(uint64_t log_hash, uint64_t token) const {
  const ShardLookup& s = shard(log_hash);
  if (const auto* fuse = std::get_if<FuseFilter::Lookup>(&s.probe)) {
    return fuse->contains(std::rotl(log_hash, static_cast<int>(s.rotation)));
  }
  return std::get_if<SortedFilter::Lookup>(&s.probe)->contains_value(token);
}

CompactLayers::CompactLayers(const FilterSnapshot& snapshot)
    : options_(snapshot.options),
      budget_(split_tiered_budget(snapshot.options.target_fpr, kTieredActiveRatio, kMergeRatio)),
      bloom_share_(budget_.bloom_layer_fpr),
      log_(snapshot.options.hash_log, snapshot.log_keys) {
  if (budget_.big_fingerprint_bits == 0 || budget_.max_runs > kMaxRuns) {
    throw std::invalid_argument("SeenFilter: target_fpr " + std::to_string(options_.target_fpr) +
                                " cannot be split between a compact layer and Bloom layers");
  }
  if (snapshot.layers.size() > 2) throw std::invalid_argument("SeenFilter: compact snapshot has more than two layers");
  shards_ = snapshot.shards.empty() ? std::vector<FilterSnapshot::Shard>(1) : snapshot.shards;
  if (!valid_shard_count(shards_.size())) {
    throw std::invalid_argument("SeenFilter: compact snapshot has " + std::to_string(shards_.size()) + " shards");
  }
  if (snapshot.runs.size() > kMaxRuns) {
    throw std::invalid_argument("SeenFilter: compact snapshot has " + std::to_string(snapshot.runs.size()) + " runs");
  }
  for (const FilterSnapshot::Run& run : snapshot.runs) {
    if (!valid_shard_count(run.shards.size()))
      throw std::invalid_argument("SeenFilter: a run's shard count is invalid");
  }
  shard_bits_ = static_cast<uint32_t>(std::countr_zero(shards_.size()));
  compact_keys_ = snapshot.compact_keys;
  runs_ = snapshot.runs;
  refresh_lookups_locked();  // not shared yet: no lock needed
  uint64_t keys = compact_keys_ + runs_keys_locked();
  for (const FilterSnapshot::Layer& l : snapshot.layers) keys += l.keys;
  if (keys != snapshot.log_keys) {
    throw std::invalid_argument("SeenFilter: compact snapshot holds " + std::to_string(keys) + " keys, its log " +
                                std::to_string(snapshot.log_keys));
  }
  active_ = std::make_unique<Active>();
  if (snapshot.layers.empty()) {
    active_->bits = std::make_shared<LayerBits>(size_layer(0, active_capacity(0), bloom_share_));
    next_layer_index_ = 1;
  } else {
    const FilterSnapshot::Layer& last = snapshot.layers.back();
    active_->bits = last.bits->copy();  // private: it will be written
    active_->reserved.store(last.keys);
    next_layer_index_ = last.bits->geometry().index + 1;
  }
  if (snapshot.layers.size() == 2) {
    // Saved during a rebuild: finish it.
    frozen_ = snapshot.layers[0].bits;
    frozen_keys_ = snapshot.layers[0].keys;
    start_rebuild_locked(compact_keys_ + runs_keys_locked() + frozen_keys_);
  }
}

CompactLayers::~CompactLayers() { wait_for_rebuild(); }

void CompactLayers::wait_for_rebuild() {
  std::lock_guard lock(seal_mu_);
  if (rebuild_thread_.joinable()) rebuild_thread_.join();
}

void CompactLayers::set_rebuild_progress(std::function<void(std::string_view)> progress) {
  std::lock_guard lock(state_mu_);
  progress_ = std::move(progress);
}

void CompactLayers::report(std::string_view step) const {
  std::function<void(std::string_view)> progress;
  {
    std::lock_guard lock(state_mu_);
    progress = progress_;
  }
  if (progress) progress(step);
}

// The big level first: it holds most present keys (at least three quarters), and a key it finds
// needs neither Bloom layer's line. Tested last, every hit waited for the active layer's line
// too: at 10M keys in lockstep, hits took 1.29-1.37x the layered filter's time, 0.94-0.99x now.
bool CompactLayers::first_tier_contains(const KeyHash& hash, uint64_t h, uint64_t big_token) const {
  if (big_lookup_.contains(h, big_token)) return true;
  const LayerBits& active = *active_->bits;
  if (active.test(block_probe(hash, active.geometry()))) return true;
  return frozen_ && frozen_->test(block_probe(hash, frozen_->geometry()));
}

uint64_t CompactLayers::prefetch_first_tier(const KeyHash& hash, uint64_t h, bool for_insert) const {
  const LayerBits& active = *active_->bits;
  const uint64_t block = block_index(hash, active.geometry());
  active.prefetch(block);
  if (for_insert) stripes_.prefetch(insert_stripe(block, active.geometry().index));
  if (frozen_) frozen_->prefetch(block_index(hash, frozen_->geometry()));
  return big_lookup_.prefetch(h);
}

bool CompactLayers::runs_contain(uint64_t h) const {
  return std::ranges::any_of(run_lookups_, [h](const LevelLookup& run) { return run.contains(h, run.token_of(h)); });
}

bool CompactLayers::runs_contain(uint64_t h, const RunTokens& tokens) const {
  for (size_t r = 0; r < run_lookups_.size(); ++r) {
    if (run_lookups_[r].contains(h, tokens[r])) return true;
  }
  return false;
}

void CompactLayers::prefetch_runs(uint64_t h, RunTokens& tokens) const {
  for (size_t r = 0; r < run_lookups_.size(); ++r) tokens[r] = run_lookups_[r].prefetch(h);
}

bool CompactLayers::contains_locked(const KeyHash& hash, uint64_t h) const {
  return first_tier_contains(hash, h, big_lookup_.token_of(h)) || runs_contain(h);
}

bool CompactLayers::contains(const KeyHash& hash) const {
  std::shared_lock lock(view_mu_);
  return contains_locked(hash, log_hash(hash));
}

struct CompactLayers::Window {
  std::array<uint64_t, kWindow> log_hashes{};
  std::array<uint64_t, kWindow> big_tokens{};  // LevelLookup's
  std::array<bool, kWindow> found{};           // by the first tier
  std::array<uint32_t, kWindow> unresolved{};  // offsets the first tier did not find
  size_t left = 0;
  // Per unresolved key, by its place in `unresolved`. Not zeroed (4 KB, a single insert's window
  // too): prefetch_runs() writes a key's tokens before anything reads them.
  std::array<RunTokens, kWindow> run_tokens;  // NOLINT(cppcoreguidelines-pro-type-member-init)
};

void CompactLayers::probe_first_tier(std::span<const KeyHash> keys, Window& w, bool for_insert) const {
  for (size_t i = 0; i < keys.size(); ++i) {
    w.log_hashes[i] = log_hash(keys[i]);
    w.big_tokens[i] = prefetch_first_tier(keys[i], w.log_hashes[i], for_insert);
  }
  w.left = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    w.found[i] = first_tier_contains(keys[i], w.log_hashes[i], w.big_tokens[i]);
    if (!w.found[i]) w.unresolved[w.left++] = static_cast<uint32_t>(i);
  }
  for (size_t k = 0; k < w.left; ++k) prefetch_runs(w.log_hashes[w.unresolved[k]], w.run_tokens[k]);
}

void CompactLayers::contains_batch(std::span<const KeyHash> hashes, std::span<bool> found) const {
  Window w;
  for (size_t start = 0; start < hashes.size(); start += kWindow) {
    const size_t n = std::min(hashes.size() - start, kWindow);
    std::shared_lock lock(view_mu_);
    probe_first_tier(hashes.subspan(start, n), w, false);
    for (size_t i = 0; i < n; ++i) found[start + i] = w.found[i];
    for (size_t k = 0; k < w.left; ++k) {
      found[start + w.unresolved[k]] = runs_contain(w.log_hashes[w.unresolved[k]], w.run_tokens[k]);
    }
  }
}

// As SeenFilter::insert_hashed: the stripe of the key's block in the active layer makes "test all
// layers, then set bits" one step per key. The view cannot change meanwhile (we hold view_mu_
// shared), so every inserter of a key takes the same stripe; the frozen layer, the big level and
// the runs cannot change either, so testing the first two before taking the stripe (the first
// tier) is the same as testing them under it.
template <CompactLayers::Writers kWriters>
CompactLayers::Probe CompactLayers::insert_locked(const KeyHash& hash, uint64_t h, const RunTokens& run_tokens,
                                                  std::vector<uint64_t>& fresh) {
  Active& active = *active_;
  const LayerGeometry& g = active.bits->geometry();
  const BlockProbe probe = block_probe(hash, g);
  std::optional<StripeLocks::Guard> guard;
  if constexpr (kWriters == Writers::kMany) guard.emplace(stripes_, insert_stripe(probe.block, g.index));
  if (active.bits->test(probe)) return Probe::kSeen;  // another inserter, or this key earlier in the batch
  if (runs_contain(h, run_tokens)) return Probe::kSeen;
  bool slot;
  if constexpr (kWriters == Writers::kOne) {
    const uint64_t taken = active.reserved.load(std::memory_order_relaxed);
    slot = taken < g.capacity;
    if (slot) active.reserved.store(taken + 1, std::memory_order_relaxed);
  } else {
    slot = active.reserved.load(std::memory_order_relaxed) < g.capacity &&
           active.reserved.fetch_add(1, std::memory_order_relaxed) < g.capacity;
  }
  if (!slot) return Probe::kNoRoom;
  active.bits->set_exclusive(probe);
  fresh.push_back(h);
  return Probe::kNew;
}

void CompactLayers::insert_batch(std::span<const KeyHash> hashes, std::span<InsertOutcome> outcomes, Writers writers) {
  if (failed_.load(std::memory_order_acquire)) throw_failure();
  std::vector<uint64_t> fresh;
  fresh.reserve(kWindow);
  Window w;
  size_t next = 0;
  while (next < hashes.size()) {
    uint32_t generation;
    {
      std::shared_lock lock(view_mu_);
      generation = next_layer_index_;
      const size_t start = next;
      const size_t end = std::min(hashes.size(), start + kWindow);
      probe_first_tier(hashes.subspan(start, end - start), w, writers == Writers::kMany);
      for (size_t i = start; i < end; ++i) {
        if (w.found[i - start]) outcomes[i] = InsertOutcome::kSeen;
      }
      next = end;
      for (size_t k = 0; k < w.left; ++k) {
        const size_t i = start + w.unresolved[k];
        const uint64_t h = w.log_hashes[w.unresolved[k]];
        const RunTokens& tokens = w.run_tokens[k];
        const Probe p = writers == Writers::kOne ? insert_locked<Writers::kOne>(hashes[i], h, tokens, fresh)
                                                 : insert_locked<Writers::kMany>(hashes[i], h, tokens, fresh);
        if (p == Probe::kNoRoom) {
          next = i;  // the keys from here on are probed again once the layer is sealed
          break;
        }
        outcomes[i] = p == Probe::kNew ? InsertOutcome::kNew : InsertOutcome::kSeen;
      }
      // Logged before the view is released: a seal (which takes the view exclusively) finds every
      // key of the layer it freezes in the log.
      if (!fresh.empty()) {
        append_to_log(fresh);
        fresh.clear();
      }
      if (next == end) continue;
    }
    if (!seal(generation)) {
      if (failed_.load(std::memory_order_acquire)) throw_failure();
      // Growth refused: the key is still checked, but an absent one is not recorded.
      outcomes[next] = contains(hashes[next]) ? InsertOutcome::kSeen : InsertOutcome::kFull;
      ++next;
    }
  }
}

// A failed append (a full or failing disk) must not throw out of an insert whose bits are set: the
// keys stay in the Bloom layers, growth stops (a rebuild from a log missing them would lose them),
// the next insert throws and the next snapshot too, so a checkpoint never names keys the log lacks.
void CompactLayers::append_to_log(std::span<const uint64_t> hashes) {
  std::lock_guard log_lock(log_mu_);
  if (log_failed_) return;
  try {
    log_.append(hashes);
  } catch (const std::exception& e) {
    log_failed_locked(e);
  }
}

void CompactLayers::log_failed_locked(const std::exception& error) {
  log_failed_ = true;
  log_error_ = std::string("hash log write failed: ") + error.what();
  std::lock_guard lock(state_mu_);
  fail_locked(log_error_);
}

void CompactLayers::refuse_locked(std::string reason) {
  full_reason_ = std::move(reason);
  full_.store(true, std::memory_order_release);
}

void CompactLayers::fail_locked(std::string reason) {
  refuse_locked(std::move(reason));
  failed_.store(true, std::memory_order_release);
}

void CompactLayers::throw_failure() const {
  throw CheckpointError(options_.hash_log.parent_path().string(), "the seen filter cannot grow: " + full_reason());
}

uint64_t CompactLayers::compact_bytes_locked() const {
  uint64_t bytes = shards_bytes(shards_);
  for (const FilterSnapshot::Run& run : runs_) bytes += shards_bytes(run.shards);
  return bytes;
}

uint64_t CompactLayers::runs_keys_locked() const {
  uint64_t keys = 0;
  for (const FilterSnapshot::Run& run : runs_) keys += run.keys;
  return keys;
}

bool CompactLayers::seal(uint32_t generation) {
  std::lock_guard seal_lock(seal_mu_);
  {
    std::shared_lock lock(view_mu_);
    if (next_layer_index_ != generation) return true;  // another thread sealed it
  }
  if (full()) return false;
  // At most one frozen layer (the FPR budget has room for two Bloom layers): a seal waits for the
  // previous rebuild. docs/seenfilter.md measures how often that happens.
  if (rebuild_thread_.joinable()) rebuild_thread_.join();
  if (full()) return false;
  std::unique_lock lock(view_mu_);
  uint64_t keys;
  {
    std::lock_guard log_lock(log_mu_);
    if (!log_failed_) {
      try {
        log_.flush();  // the rebuild reads the file
      } catch (const std::exception& e) {
        log_failed_locked(e);
      }
    }
    if (log_failed_) return false;
    keys = log_.keys();
  }
  const uint64_t capacity = active_capacity(keys);
  const LayerGeometry g = size_layer(next_layer_index_ % SeenFilter::kMaxLayers, capacity, bloom_share_);
  const uint64_t needed = compact_bytes_locked() + compact_bytes_for(keys, budget_.big_fingerprint_bits) +
                          active_->bits->geometry().bytes() + g.bytes();
  std::lock_guard state_lock(state_mu_);
  if (needed > options_.memory_limit_bytes) {
    refuse_locked("memory limit reached: a compact rebuild of " + std::to_string(keys) + " keys and a new layer of " +
                  std::to_string(capacity) + " need " + std::to_string(needed) + " bytes, limit is " +
                  std::to_string(options_.memory_limit_bytes) + " (memory_limit_bytes)");
    return false;
  }
  try {
    auto next = std::make_unique<Active>();
    next->bits = std::make_shared<LayerBits>(g);
    frozen_ = active_->bits;
    frozen_keys_ = active_->keys();
    active_ = std::move(next);
    ++next_layer_index_;
  } catch (const std::bad_alloc&) {
    refuse_locked("out of memory allocating a layer of " + std::to_string(g.bytes()) + " bytes");
    return false;
  }
  start_rebuild_locked(keys);
  return true;
}

// A merge when the runs and the frozen keys would pass kMergeRatio of the big level's keys or the
// runs be more than the budget counts, and when the state is not one runs can be added to: shards
// of another fingerprint size (a version 2 checkpoint's) or a run a merge had begun to drop (a
// checkpoint taken during a merge).
bool CompactLayers::merge_due_locked() const {
  if (runs_.size() + (pairs_with_last_run_locked() ? 0 : 1) > budget_.max_runs) return true;
  if (static_cast<double>(runs_keys_locked() + frozen_keys_) > kMergeRatio * static_cast<double>(compact_keys_)) {
    return true;
  }
  for (const FilterSnapshot::Shard& s : shards_) {
    if (s.filter && s.filter->fingerprint_bits() != budget_.big_fingerprint_bits) return true;
  }
  for (const FilterSnapshot::Run& run : runs_) {
    for (const FilterSnapshot::Shard& s : run.shards) {
      if (!s.filter) return true;
    }
  }
  return false;
}

bool CompactLayers::pairs_with_last_run_locked() const { return !runs_.empty() && runs_.back().keys <= frozen_keys_; }

uint64_t CompactLayers::active_capacity(uint64_t keys) const {
  return std::max<uint64_t>(std::min<uint64_t>(options_.initial_capacity, kMinActiveKeys),
                            static_cast<uint64_t>(std::ceil(static_cast<double>(keys) * kTieredActiveRatio)));
}

void CompactLayers::start_rebuild_locked(uint64_t upto_keys) {
  // Runs split on the big level's bits at their size, so a merge drops each run's shards as the
  // big shards under them switch (a merge's bits are at least a run's: it holds more keys).
  const ShardPlan big = big_shard_plan(upto_keys, budget_.big_fingerprint_bits, shard_bits_);
  if (merge_due_locked()) {
    rebuild_thread_ = std::thread([this, upto_keys, big] { merge(upto_keys, big); });
  } else {
    // A run of one seal's keys (no more than the frozen layer's) is rebuilt with the frozen keys
    // into a run of two, in its place (docs/seenfilter.md, "Runs in pairs"): every new key is
    // tested against every run, so halving the runs saves the inserting thread more than the
    // pairs' second build costs the jobs. A pair is at least as finely split as the run it replaces.
    const bool pair = pairs_with_last_run_locked();
    const uint64_t keys = frozen_keys_ + (pair ? runs_.back().keys : 0);
    const auto replaced_bits = pair ? static_cast<uint32_t>(std::countr_zero(runs_.back().shards.size())) : 0;
    const ShardPlan run = run_shard_plan(keys, upto_keys, budget_.big_fingerprint_bits, big.bits, replaced_bits);
    const uint64_t first = upto_keys - keys;
    rebuild_thread_ = std::thread([this, first, upto_keys, run, pair] { build_run(first, upto_keys, run, pair); });
  }
}

// Finer shards: each old shard answers for all of its new sub-shards until they are rebuilt.
void CompactLayers::split_shards(Shards& shards, uint32_t from_bits, uint32_t to_bits) {
  Shards finer(size_t{1} << to_bits);
  for (size_t i = 0; i < finer.size(); ++i) finer[i] = shards[i >> (to_bits - from_bits)];
  shards = std::move(finer);
}

void CompactLayers::switch_shard(uint32_t bits, uint32_t shard, std::shared_ptr<const StaticFilter> filter) {
  std::unique_lock lock(view_mu_);
  const bool split = bits > shard_bits_;
  if (split) {
    split_shards(shards_, shard_bits_, bits);
    shard_bits_ = bits;
  }
  shards_[shard] = {std::move(filter), bits};
  // A run's shard whose last big shard this is: every key of it is now in the big level. The
  // lookups change entry by entry (copies of shared_ptrs, no allocation), but after a split the
  // big level's table has another size: both tables are rebuilt whole, and only then, so a
  // refresh that throws leaves the old ones, which still hold the dropped run shards.
  for (size_t r = 0; r < runs_.size(); ++r) {
    FilterSnapshot::Run& run = runs_[r];
    const auto run_bits = static_cast<uint32_t>(std::countr_zero(run.shards.size()));
    if (run_bits > bits) continue;  // finer than the merge (not made so): dropped when it ends
    const uint32_t under = bits - run_bits;
    if (((shard + 1) & ((uint32_t{1} << under) - 1)) != 0) continue;
    run.shards[shard >> under].filter.reset();
    if (!split) run_lookups_[r].shards[shard >> under] = lookup_of(run.shards[shard >> under]);
  }
  if (split) {
    refresh_lookups_locked();
  } else {
    big_lookup_.shards[shard] = lookup_of(shards_[shard]);
  }
}

// The pair's shard holds every key of the last run's shards under it (and the frozen keys there,
// which the frozen layer still holds): it takes their place at once, so a pair build holds one
// shard beside the filter, as a run build does.
void CompactLayers::switch_pair_shard(uint32_t bits, uint32_t shard, std::shared_ptr<const StaticFilter> filter) {
  std::unique_lock lock(view_mu_);
  Shards& shards = runs_.back().shards;
  const auto replaced_bits = static_cast<uint32_t>(std::countr_zero(shards.size()));
  if (bits < replaced_bits) throw std::logic_error("a pair's shards are coarser than the run it replaces");
  if (bits > replaced_bits) {
    // The run's table gets another size: it is rebuilt whole (as switch_shard does after a split).
    split_shards(shards, replaced_bits, bits);
    shards[shard] = {std::move(filter), bits};
    refresh_lookups_locked();
  } else {
    shards[shard] = {std::move(filter), bits};
    run_lookups_.back().shards[shard] = lookup_of(shards[shard]);
  }
}

ShardKeyFiles CompactLayers::fill(ShardKeyFiles files, uint64_t first, uint64_t upto, Job& job) const {
  const size_t batch = spill_batch(job.filter_bytes, files.bits());
  job.extra_bytes = std::max(job.extra_bytes, files.append_from_log(options_.hash_log, first, upto, batch));
  return files;
}

// One shard at a time: memory holds one shard's keys and build beside the filter.
uint64_t CompactLayers::build_shards(ShardKeyFiles& files, uint32_t fingerprint_bits, bool sorted, uint32_t arity,
                                     const std::function<ShardKeyFiles()>& respill, const ShardBuilt& built) {
  const size_t shards = size_t{1} << files.bits();
  uint64_t largest = 0;
  for (uint32_t s = 0; s < shards; ++s) largest = std::max(largest, files.keys(s));
  std::vector<uint64_t> keys;
  keys.reserve(largest);     // not a doubling resize() per shard
  FuseBuildScratch scratch;  // shards are of similar sizes: one allocation serves them all
  // A sorted shard is built streamed from its file (SortedFilter::build_streamed), through a
  // chunk of an eighth of its keys and a table of buckets.
  std::vector<uint64_t> chunk(sorted ? std::max<uint64_t>(largest / 8, 1) : 0);
  std::vector<uint32_t> buckets;
  uint64_t held = 0;
  for (uint32_t s = 0; s < shards; ++s) {
    std::shared_ptr<const StaticFilter> filter;
    const auto build = [&] {
      if (sorted) {
        std::optional<SortedFilter> built = SortedFilter::build_streamed(
            files.keys(s), fingerprint_bits,
            [&](const std::function<void(std::span<const uint64_t>)>& visit) {
              return files.read_in_chunks(s, chunk, visit);
            },
            keys, buckets);
        if (!built) return false;
        filter = std::make_shared<const StaticFilter>(std::move(*built));
        held = std::max(held, (keys.capacity() + chunk.size()) * sizeof(uint64_t) +
                                  buckets.capacity() * sizeof(uint32_t) + filter->bytes());
        return true;
      }
      if (!files.read(s, keys)) return false;
      FuseFilterBuilder builder(keys.size(), fingerprint_bits, build_partition_bits(keys.size()), &scratch, arity);
      builder.add_all(keys);
      filter = std::make_shared<const StaticFilter>(builder.finish());
      held = std::max(held, keys.capacity() * sizeof(uint64_t) + builder.peak_scratch_bytes() + filter->bytes());
      return true;
    };
    if (!build()) {
      // Its keys were lost (a power cut under a kept key file): every file is written again.
      files = respill();
      if (!build()) {
        throw CheckpointError(options_.hash_log.string(),
                              "shard " + std::to_string(s) + ": a rebuild's key file does not hold its keys");
      }
    }
    built(s, std::move(filter));
  }
  return held;
}

// The log's keys [first, upto) into a run: the frozen keys alone, switched in with the frozen
// layer's drop in one step, or a pair (the last run's keys and the frozen ones), switched shard by
// shard in the last run's place and completed by the frozen layer's drop.
void CompactLayers::build_run(uint64_t first, uint64_t upto, ShardPlan plan, bool pair) {
  const auto started = std::chrono::steady_clock::now();
  Job job = start_job(false);
  try {
    const uint32_t bits = plan.bits;
    // A pair's shards go straight into the last run's table: this one is a plain run's.
    FilterSnapshot::Run run{.shards = Shards(pair ? 0 : size_t{1} << bits), .keys = upto - first};
    const fs::path dir = options_.hash_log.string() + std::string(kRunKeyFilesSuffix);
    const auto spill = [&] { return fill(ShardKeyFiles::fresh(dir, bits), first, upto, job); };
    ShardKeyFiles files = spill();
    report("spilled");
    const uint64_t held = build_shards(files, budget_.run_fingerprint_bits, plan.sorted, kRunArity, spill,
                                       [&](uint32_t shard, std::shared_ptr<const StaticFilter> filter) {
                                         if (pair) {
                                           switch_pair_shard(bits, shard, std::move(filter));
                                         } else {
                                           run.shards[shard] = {std::move(filter), bits};
                                         }
                                         files.clear(shard);
                                         report(pair ? "pair shard " + std::to_string(shard) + " switched"
                                                     : "run shard " + std::to_string(shard) + " built");
                                       });
    job.extra_bytes = std::max(job.extra_bytes, held);
    {
      std::unique_lock lock(view_mu_);
      if (pair) {
        runs_.back().keys = run.keys;  // its shards are all switched
      } else {
        runs_.push_back(std::move(run));
        refresh_lookups_locked();
      }
      frozen_.reset();
      frozen_keys_ = 0;
    }
    finish_job(job, started);
    report("run switched");
  } catch (const std::exception& e) {
    // The frozen layer stays, so no key is lost; growth stops with the reason.
    std::lock_guard lock(state_mu_);
    fail_locked(std::string("compact run build failed: ") + e.what());
  }
}

// The big level, the runs and the frozen keys (the log's first upto_keys) into a new big level,
// switched shard by shard; the runs and the frozen layer go when the last shard is switched.
void CompactLayers::merge(uint64_t upto_keys, ShardPlan plan) {
  const auto started = std::chrono::steady_clock::now();
  Job job = start_job(true);
  try {
    // The big level's keys by shard, kept from the last merge (ShardKeyFiles): only the keys
    // after them are read from the log.
    const fs::path dir = options_.hash_log.string() + std::string(kMergeKeyFilesSuffix);
    const uint32_t bits = plan.bits;
    uint64_t cached;
    {
      std::shared_lock lock(view_mu_);
      cached = compact_keys_;
    }
    const auto respill = [&] { return fill(ShardKeyFiles::fresh(dir, bits), 0, upto_keys, job); };
    std::optional<ShardKeyFiles> kept = ShardKeyFiles::reopen(dir, bits, cached);
    ShardKeyFiles files = kept ? fill(std::move(*kept), cached, upto_keys, job) : respill();
    report("spilled");
    const uint64_t held = build_shards(files, budget_.big_fingerprint_bits, plan.sorted, big_level_arity(upto_keys),
                                       respill, [&](uint32_t shard, std::shared_ptr<const StaticFilter> filter) {
                                         switch_shard(bits, shard, std::move(filter));
                                         report("shard " + std::to_string(shard) + " switched");
                                       });
    job.extra_bytes = std::max(job.extra_bytes, held);
    // Every shard is switched: a cache that cannot be kept (a full disk) only costs the next
    // merge a spill of the whole log, so it does not stop growth.
    (void)files.save();
    {
      std::unique_lock lock(view_mu_);
      runs_.clear();
      refresh_lookups_locked();
      frozen_.reset();
      frozen_keys_ = 0;
      compact_keys_ = upto_keys;
    }
    finish_job(job, started);
    report("rebuild done");
  } catch (const std::exception& e) {
    std::lock_guard lock(state_mu_);
    fail_locked(std::string("compact rebuild failed: ") + e.what());
  }
}

CompactLayers::Job CompactLayers::start_job(bool merge) const {
  std::shared_lock lock(view_mu_);
  uint64_t bytes = compact_bytes_locked() + active_->bits->geometry().bytes();
  if (frozen_) bytes += frozen_->geometry().bytes();
  return {.merge = merge, .filter_bytes = bytes};
}

void CompactLayers::finish_job(Job job, std::chrono::steady_clock::time_point started) {
  job.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  timespec cpu{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0) {
    job.cpu_seconds = static_cast<double>(cpu.tv_sec) + static_cast<double>(cpu.tv_nsec) * 1e-9;
  }
  std::lock_guard lock(state_mu_);
  jobs_.push_back(job);
}

std::vector<CompactLayers::Job> CompactLayers::jobs() const {
  std::lock_guard lock(state_mu_);
  return jobs_;
}

uint64_t CompactLayers::rebuilds() const {
  std::lock_guard lock(state_mu_);
  return static_cast<uint64_t>(std::count_if(jobs_.begin(), jobs_.end(), [](const Job& j) { return j.merge; }));
}

uint64_t CompactLayers::runs_built() const {
  std::lock_guard lock(state_mu_);
  return static_cast<uint64_t>(std::count_if(jobs_.begin(), jobs_.end(), [](const Job& j) { return !j.merge; }));
}

uint64_t CompactLayers::peak_rebuild_bytes() const {
  std::lock_guard lock(state_mu_);
  uint64_t peak = 0;
  for (const Job& j : jobs_) peak = std::max(peak, j.extra_bytes);
  return peak;
}

uint64_t CompactLayers::size() const {
  std::shared_lock lock(view_mu_);
  return compact_keys_ + runs_keys_locked() + frozen_keys_ + active_->keys();
}

std::string CompactLayers::full_reason() const {
  std::lock_guard lock(state_mu_);
  return full_reason_;
}

void CompactLayers::add_stats(SeenFilterStats& out, bool compute_fill) const {
  std::shared_lock lock(view_mu_);
  LayerStats compact;
  compact.kind = "compact";
  compact.keys = compact_keys_;
  compact.capacity = compact_keys_;
  compact.bytes = shards_bytes(shards_);
  compact.probes = 3;
  compact.bits_per_key =
      compact_keys_ == 0 ? 0.0 : static_cast<double>(compact.bytes) * 8.0 / static_cast<double>(compact_keys_);
  compact.target_fpr = budget_.big_fpr;
  compact.estimated_fpr = compact_keys_ == 0 ? 0.0 : budget_.big_fpr;
  compact.sealed = true;
  out.layers.push_back(compact);
  for (const FilterSnapshot::Run& r : runs_) {
    LayerStats run = compact;
    run.kind = "run";
    run.keys = run.capacity = r.keys;
    run.bytes = shards_bytes(r.shards);
    run.bits_per_key = static_cast<double>(run.bytes) * 8.0 / static_cast<double>(std::max<uint64_t>(r.keys, 1));
    run.target_fpr = run.estimated_fpr = budget_.run_fpr;
    out.layers.push_back(run);
  }
  const auto bloom = [&](const LayerBits& bits, uint64_t keys, bool sealed) {
    const LayerGeometry& g = bits.geometry();
    LayerStats s;
    s.index = g.index;
    s.capacity = g.capacity;
    s.keys = keys;
    s.bytes = g.bytes();
    s.probes = g.probes;
    s.bits_per_key = g.bits_per_key();
    if (compute_fill) s.fill = static_cast<double>(bits.popcount()) / static_cast<double>(g.bytes() * 8);
    s.target_fpr = bloom_share_;
    s.estimated_fpr = layer_fpr(g, keys);
    s.sealed = sealed;
    out.layers.push_back(s);
  };
  if (frozen_) bloom(*frozen_, frozen_keys_, true);
  bloom(*active_->bits, active_->keys(), false);
  double pass = 1.0;
  for (const LayerStats& s : out.layers) {
    out.keys += s.keys;
    out.bytes += s.bytes;
    pass *= 1.0 - s.estimated_fpr;
  }
  out.bits_per_key = out.keys == 0 ? 0.0 : static_cast<double>(out.bytes) * 8.0 / static_cast<double>(out.keys);
  out.estimated_fpr = 1.0 - pass;
  // Every key was inserted at an FPR within the target: the target times the keys bounds it.
  out.estimated_false_positives = static_cast<double>(out.keys) * options_.target_fpr;
  out.full = full();
  if (out.full) out.full_reason = full_reason();
}

FilterSnapshot CompactLayers::snapshot(const SeenFilterOptions& options) const {
  FilterSnapshot snap;
  snap.options = options;
  {
    // Exclusive: no insert is between setting its bits and logging its hash.
    std::unique_lock lock(view_mu_);
    snap.shards = shards_;
    snap.runs = runs_;
    snap.compact_keys = compact_keys_;
    if (frozen_) snap.layers.push_back({frozen_, frozen_keys_});
    snap.layers.push_back({active_->bits->copy(), active_->keys()});
    std::lock_guard log_lock(log_mu_);
    if (log_failed_) throw CheckpointError(options_.hash_log.string(), log_error_);
    log_.flush();
    snap.log_keys = log_.keys();
  }
  std::lock_guard log_lock(log_mu_);
  log_.sync();  // durable up to snap.log_keys before a checkpoint names them
  return snap;
}

}  // namespace bloomcrawl::seenfilter
