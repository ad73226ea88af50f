#include "seenfilter/seen_filter.h"

#include <algorithm>
#include <new>
#include <optional>
#include <stdexcept>
#include <utility>

#include "seenfilter/compact_layers.h"
#include "seenfilter/fpr_estimate.h"
#include "seenfilter/layer_plan.h"

namespace bloomcrawl {

using seenfilter::BlockProbe;
using seenfilter::LayerBits;
using seenfilter::LayerGeometry;

const char* to_string(InsertOutcome outcome) {
  switch (outcome) {
    case InsertOutcome::kNew: return "new";
    case InsertOutcome::kSeen: return "seen";
    case InsertOutcome::kFull: return "full";
  }
  return "?";
}

SeenFilter::SeenFilter(SeenFilterOptions options) : options_(std::move(options)) {
  options_.validate();
  if (!options_.hash_log.empty()) {
    FilterSnapshot empty;
    empty.options = options_;
    compact_ = std::make_unique<seenfilter::CompactLayers>(empty);
    return;
  }
  std::lock_guard lock(growth_mu_);
  append_layer_locked(std::make_shared<LayerBits>(seenfilter::plan_layer(options_, 0)), 0);
}

SeenFilter::SeenFilter(const FilterSnapshot& snapshot) : options_(snapshot.options) {
  options_.validate();
  if (!options_.hash_log.empty()) {
    compact_ = std::make_unique<seenfilter::CompactLayers>(snapshot);
    return;
  }
  if (!snapshot.shards.empty()) throw std::invalid_argument("SeenFilter: a compact snapshot needs a hash_log");
  if (snapshot.layers.empty()) throw std::invalid_argument("SeenFilter: snapshot has no layers");
  if (snapshot.layers.size() > kMaxLayers) throw std::invalid_argument("SeenFilter: snapshot has too many layers");
  std::lock_guard lock(growth_mu_);
  for (size_t i = 0; i < snapshot.layers.size(); ++i) {
    const FilterSnapshot::Layer& in = snapshot.layers[i];
    const LayerGeometry& g = in.bits->geometry();
    if (g.index != i || in.keys > g.capacity) {
      throw std::invalid_argument("SeenFilter: snapshot layer " + std::to_string(i) + " is inconsistent");
    }
    const bool last = i + 1 == snapshot.layers.size();
    std::shared_ptr<LayerBits> bits;
    uint64_t keys = g.capacity;
    if (last && in.keys < g.capacity) {
      bits = in.bits->copy();  // the active layer must be private: it will be written
      keys = in.keys;
    } else {
      // Earlier layers are sealed even if a snapshot caught one short of capacity (its last
      // inserts were still in flight); sealed layers are never written, so sharing is safe.
      bits = std::const_pointer_cast<LayerBits>(in.bits);
    }
    // Layers already saved are loaded even if they exceed a since-lowered memory limit; the
    // limit then only stops further growth.
    append_layer_locked(std::move(bits), keys);
  }
}

SeenFilter::~SeenFilter() = default;

SeenFilter::LiveLayer* SeenFilter::append_layer_locked(std::shared_ptr<LayerBits> bits, uint64_t keys) {
  auto live = std::make_unique<LiveLayer>();
  live->bits = std::move(bits);
  live->reserved.store(keys);
  const uint32_t index = layer_count_.load(std::memory_order_relaxed);
  bytes_ += live->bits->geometry().bytes();
  LiveLayer* raw = live.get();
  owned_layers_.push_back(std::move(live));
  layers_[index].store(raw, std::memory_order_release);
  layer_count_.store(index + 1, std::memory_order_release);
  return raw;
}

SeenFilter::LiveLayer* SeenFilter::next_layer(uint32_t index) {
  std::lock_guard lock(growth_mu_);
  const uint32_t count = layer_count_.load(std::memory_order_relaxed);
  if (index + 1 < count) return layers_[index + 1].load(std::memory_order_relaxed);
  if (full_.load(std::memory_order_relaxed)) return nullptr;
  const uint32_t next = index + 1;
  auto refuse = [&](std::string reason) -> LiveLayer* {
    full_reason_ = std::move(reason);
    full_.store(true, std::memory_order_release);
    return nullptr;
  };
  if (next >= kMaxLayers) return refuse("the filter reached its maximum of " + std::to_string(kMaxLayers) + " layers");
  if (options_.tightening_ratio == 0.0) {
    return refuse("the filter is one layer (tightening_ratio 0) and it holds its capacity of " +
                  std::to_string(layer(index)->bits->geometry().capacity) + " keys");
  }
  const LayerGeometry g = seenfilter::plan_layer(options_, next);
  if (g.blocks == 0) {
    return refuse("layer " + std::to_string(next) + " cannot reach its FPR share " +
                  std::to_string(seenfilter::layer_fpr_share(options_, next)) + " within 128 bits per key");
  }
  // Inserters that reserved the last slots of layer `index` may still be setting their bits,
  // each holding its stripe; the next layer is published only once they are done
  // (try_insert_hashed() relies on it). Later reservations in layer `index` all fail.
  stripes_.sweep();
  if (bytes_ + g.bytes() > options_.memory_limit_bytes) {
    return refuse("memory limit reached: layer " + std::to_string(next) + " needs " + std::to_string(g.bytes()) +
                  " bytes on top of " + std::to_string(bytes_) + ", limit is " +
                  std::to_string(options_.memory_limit_bytes) + " (memory_limit_bytes)");
  }
  try {
    return append_layer_locked(std::make_shared<LayerBits>(g), 0);
  } catch (const std::bad_alloc&) {
    return refuse("out of memory allocating layer " + std::to_string(next) + " (" + std::to_string(g.bytes()) +
                  " bytes)");
  }
}

namespace {
// The stripe an insert takes: one per block of the active layer (stripe_locks.h).
uint64_t insert_stripe(uint64_t block, uint32_t layer_index) { return (block << 7) | layer_index; }
static_assert(SeenFilter::kMaxLayers <= 128);
}  // namespace

InsertOutcome SeenFilter::try_insert_hashed(const KeyHash& hash) {
  if (compact_) return compact_->insert(hash);
  return insert_hashed<Writers::kMany>(hash);
}

// With Writers::kOne the caller is the only writer, so there is no other inserter to exclude and
// the stripe (an atomic exchange and a store per key) is skipped and a slot is taken with a plain
// store rather than a locked add (a full barrier on x86, a tenth of a dedup insert); all else is
// the same.
template <SeenFilter::Writers kWriters>
InsertOutcome SeenFilter::insert_hashed(const KeyHash& hash) {
  for (;;) {
    const uint32_t count = layer_count();
    LiveLayer* active = layer(count - 1);
    const LayerGeometry& g = active->bits->geometry();
    const seenfilter::BlockProbe probe = seenfilter::block_probe(hash, g);
    {
      std::optional<seenfilter::StripeLocks::Guard> guard;
      if constexpr (kWriters == Writers::kMany) guard.emplace(stripes_, insert_stripe(probe.block, g.index));
      // Every inserter of this key that saw `count` layers holds this stripe now. One that saw
      // more layers may not, but a layer is published only once the one before it is full with
      // all its bits set (next_layer()), so it has seen our insert or we cannot reserve a slot.
      if (layer_count() != count) continue;
      // As contains_hashed(), newest first, but reusing the active layer's probe from above.
      if (active->bits->test(probe)) return InsertOutcome::kSeen;
      for (uint32_t i = count - 1; i-- > 0;) {
        const LayerBits& bits = *layer(i)->bits;
        if (bits.test(seenfilter::block_probe(hash, bits.geometry()))) return InsertOutcome::kSeen;
      }
      bool slot;
      if constexpr (kWriters == Writers::kOne) {
        const uint64_t taken = active->reserved.load(std::memory_order_relaxed);
        slot = taken < g.capacity;
        if (slot) active->reserved.store(taken + 1, std::memory_order_relaxed);
      } else {
        slot = active->reserved.load(std::memory_order_relaxed) < g.capacity &&
               active->reserved.fetch_add(1, std::memory_order_relaxed) < g.capacity;
      }
      if (slot) {
        active->bits->set_exclusive(probe);
        return InsertOutcome::kNew;
      }
    }
    // The active layer is full: grow (not holding a stripe, which next_layer() may wait on).
    if (next_layer(g.index) == nullptr) return InsertOutcome::kFull;
  }
}

bool SeenFilter::contains_hashed(const KeyHash& hash) const {
  if (compact_) return compact_->contains(hash);
  for (uint32_t i = layer_count(); i-- > 0;) {
    const LayerBits& bits = *layer(i)->bits;
    if (bits.test(seenfilter::block_probe(hash, bits.geometry()))) return true;
  }
  return false;
}

void SeenFilter::prefetch(const KeyHash& hash, uint32_t layers, bool for_insert) const {
  for (uint32_t i = 0; i < layers; ++i) {
    const LayerBits& bits = *layer(i)->bits;
    const uint64_t block = seenfilter::block_index(hash, bits.geometry());
    bits.prefetch(block);
    if (for_insert && i + 1 == layers) stripes_.prefetch(insert_stripe(block, i));
  }
}

// A single call has no other keys to overlap its misses with, but one key's lines in different
// layers are independent: prefetching them all first takes their misses together rather than one
// layer after another. One layer gains nothing (its probe is the first load anyway).
KeyHash SeenFilter::hash_and_prefetch(std::string_view key, bool for_insert) const {
  const KeyHash hash = hash_key(key);
  const uint32_t layers = layer_count();
  if (layers > 1) prefetch(hash, layers, for_insert);
  return hash;
}

namespace {
// Keys hashed and prefetched ahead of probing: enough to cover memory latency with a page's
// worth of links, small enough that the prefetched lines are still in L1 when probed. 32 rather
// than 16: `bloomcrawl dedup` spent 6-8% less CPU with it (bench/results/dedup.md's machine).
constexpr size_t kBatchWindow = 32;

void check_batch_sizes(size_t keys, size_t outputs) {
  if (outputs < keys) {
    throw std::invalid_argument("SeenFilter batch: output span has " + std::to_string(outputs) + " slots for " +
                                std::to_string(keys) + " keys");
  }
}
}  // namespace

template <typename Consume>
void SeenFilter::hash_windows(std::span<const std::string_view> keys, size_t outputs, Consume&& consume) {
  check_batch_sizes(keys.size(), outputs);
  KeyHash hashes[kBatchWindow];
  for (size_t start = 0; start < keys.size(); start += kBatchWindow) {
    const size_t n = std::min(kBatchWindow, keys.size() - start);
    for (size_t i = 0; i < n; ++i) hashes[i] = hash_key(keys[start + i]);
    consume(start, std::span<const KeyHash>(hashes, n));
  }
}

// Hashes a window of keys and prefetches their cache lines in every layer before probing any,
// so the window's memory misses overlap.
template <typename Probe>
void SeenFilter::probe_batch(std::span<const std::string_view> keys, size_t outputs, bool for_insert,
                             Probe&& probe) const {
  check_batch_sizes(keys.size(), outputs);
  KeyHash hashes[kBatchWindow];
  for (size_t start = 0; start < keys.size(); start += kBatchWindow) {
    const size_t n = std::min(kBatchWindow, keys.size() - start);
    const uint32_t layers = layer_count();
    for (size_t i = 0; i < n; ++i) {
      hashes[i] = hash_key(keys[start + i]);
      prefetch(hashes[i], layers, for_insert);
    }
    for (size_t i = 0; i < n; ++i) probe(start + i, hashes[i]);
  }
}

void SeenFilter::insert_batch(std::span<const std::string_view> keys, std::span<InsertOutcome> outcomes,
                              Writers writers) {
  if (compact_) {
    hash_windows(keys, outcomes.size(), [&](size_t start, std::span<const KeyHash> hashes) {
      compact_->insert_batch(hashes, outcomes.subspan(start, hashes.size()), writers);
    });
    return;
  }
  if (writers == Writers::kOne) {
    probe_batch(keys, outcomes.size(), /*for_insert=*/false,
                [&](size_t i, const KeyHash& h) { outcomes[i] = insert_hashed<Writers::kOne>(h); });
    return;
  }
  probe_batch(keys, outcomes.size(), /*for_insert=*/true,
              [&](size_t i, const KeyHash& h) { outcomes[i] = insert_hashed<Writers::kMany>(h); });
}

void SeenFilter::contains_batch(std::span<const std::string_view> keys, std::span<bool> found) const {
  if (compact_) {
    hash_windows(keys, found.size(), [&](size_t start, std::span<const KeyHash> hashes) {
      compact_->contains_batch(hashes, found.subspan(start, hashes.size()));
    });
    return;
  }
  probe_batch(keys, found.size(), /*for_insert=*/false,
              [&](size_t i, const KeyHash& h) { found[i] = contains_hashed(h); });
}

uint64_t SeenFilter::size() const {
  if (compact_) return compact_->size();
  uint64_t keys = 0;
  for (uint32_t i = 0, n = layer_count(); i < n; ++i) {
    const LiveLayer& l = *layer(i);
    keys += l.keys();
  }
  return keys;
}

bool SeenFilter::full() const { return compact_ ? compact_->full() : full_.load(std::memory_order_acquire); }

std::string SeenFilter::full_reason() const {
  if (compact_) return compact_->full_reason();
  std::lock_guard lock(growth_mu_);
  return full_reason_;
}

SeenFilterStats SeenFilter::stats(bool compute_fill) const {
  SeenFilterStats out;
  if (compact_) {
    compact_->add_stats(out, compute_fill);
    return out;
  }
  std::vector<seenfilter::LayerLoad> loads;
  for (uint32_t i = 0, n = layer_count(); i < n; ++i) {
    const LiveLayer& l = *layer(i);
    const LayerGeometry& g = l.bits->geometry();
    LayerStats s;
    s.index = g.index;
    s.capacity = g.capacity;
    s.keys = l.keys();
    s.bytes = g.bytes();
    s.probes = g.probes;
    s.bits_per_key = g.bits_per_key();
    if (compute_fill) s.fill = static_cast<double>(l.bits->popcount()) / static_cast<double>(g.bytes() * 8);
    s.target_fpr = seenfilter::layer_fpr_share(options_, g.index);
    s.estimated_fpr = seenfilter::layer_fpr(g, s.keys);
    s.sealed = s.keys >= g.capacity;
    out.keys += s.keys;
    out.bytes += s.bytes;
    loads.push_back({g, s.keys});
    out.layers.push_back(s);
  }
  out.bits_per_key = out.keys == 0 ? 0.0 : static_cast<double>(out.bytes) * 8.0 / static_cast<double>(out.keys);
  out.estimated_fpr = seenfilter::compounded_fpr(loads);
  out.estimated_false_positives = seenfilter::expected_false_positives(loads);
  out.full = full();
  if (out.full) out.full_reason = full_reason();
  return out;
}

FilterSnapshot SeenFilter::snapshot() const {
  if (compact_) return compact_->snapshot(options_);
  FilterSnapshot snap;
  snap.options = options_;
  const uint32_t n = layer_count();
  snap.layers.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    const LiveLayer& l = *layer(i);
    const uint64_t capacity = l.bits->geometry().capacity;
    const bool last = i + 1 == n;
    const bool full = l.keys() >= capacity;
    // Full, with no layer after it yet: once the inserts that reserved its last slots are done
    // (they hold stripes), it is never written again and can be shared like a sealed one.
    if (last && full) stripes_.sweep();
    if (!last || full) {
      snap.layers.push_back({l.bits, capacity});
    } else {
      std::shared_ptr<const LayerBits> bits = l.bits->copy();
      snap.layers.push_back({std::move(bits), l.keys()});  // counted after the copy: never too few
    }
  }
  return snap;
}

}  // namespace bloomcrawl
