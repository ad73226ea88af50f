#include "seenfilter/compact_math.h"

#include <algorithm>
#include <cmath>

#include "seenfilter/blocked_bloom_math.h"

namespace bloomcrawl::seenfilter {
namespace {

// The largest partition exceeds the average by a few standard deviations (binomial loads):
// sizing leaves this much room for it.
constexpr double kLargestPartitionSlack = 1.1;
// The active layer's bits per key are those of a layer of this many keys (they barely depend on
// it: the load per block is what matters).
constexpr uint64_t kReferenceActiveKeys = uint64_t{1} << 20;

// The largest of `keys` keys split in 2^bits pieces, bytes_per_key each, is over
// kRebuildMemoryShare of filter_bytes.
bool over_share(uint64_t keys, uint32_t bits, double bytes_per_key, double filter_bytes) {
  const double piece_bytes = static_cast<double>(keys >> bits) * bytes_per_key * kLargestPartitionSlack;
  return piece_bytes > kRebuildMemoryShare * filter_bytes;
}

// log2 of the fewest pieces (at least 2^min_bits, at most 2^max_bits) that split `keys` keys so
// that one piece's build, bytes_per_key per key, stays within kRebuildMemoryShare of
// filter_bytes, unless pieces would then hold fewer than min_piece_keys. Partitions of a fuse
// filter and shards of the compact layers are both sized so.
uint32_t fewest_pieces_within_share(uint64_t keys, double bytes_per_key, double filter_bytes, uint64_t min_piece_keys,
                                    uint32_t min_bits, uint32_t max_bits) {
  uint32_t bits = min_bits;
  while (bits < max_bits && over_share(keys, bits, bytes_per_key, filter_bytes) &&
         (keys >> (bits + 1)) >= min_piece_keys) {
    ++bits;
  }
  return bits;
}

}  // namespace

double fuse_fpr(uint32_t fingerprint_bits) { return std::ldexp(1.0, -static_cast<int>(fingerprint_bits)); }

uint32_t fingerprint_bits_for(double fpr) {
  for (uint32_t bits = kMinFingerprintBits; bits <= kMaxFingerprintBits; ++bits) {
    if (fuse_fpr(bits) <= fpr) return bits;
  }
  return kMaxFingerprintBits + 1;
}

// The segment length and size factor formulas are Graf and Lemire's (xor_singleheader,
// binary_fuse_calculate_segment_length / _size_factor for arities 3 and 4): fitted so that
// peeling succeeds with high probability at the first seed.
FuseGeometry fuse_geometry(uint64_t keys, uint32_t arity) {
  FuseGeometry g;
  const double n = static_cast<double>(std::max<uint64_t>(keys, 2));
  const bool four = arity == 4;
  const int log_segment =
      static_cast<int>(std::floor(four ? std::log(n) / std::log(2.91) - 0.5 : std::log(n) / std::log(3.33) + 2.25));
  g.segment_length = uint32_t{1} << std::clamp(log_segment, 2, 18);
  const double size_factor = four ? std::max(1.075, 0.77 + 0.305 * std::log(600000.0) / std::log(n))
                                  : std::max(1.125, 0.875 + 0.25 * std::log(1e6) / std::log(n));
  const auto capacity = static_cast<uint64_t>(std::llround(n * size_factor));
  const uint64_t segments = (capacity + g.segment_length - 1) / g.segment_length;
  g.segment_count = static_cast<uint32_t>(segments > arity - 1 ? segments - (arity - 1) : 1);
  g.cells = (uint64_t{g.segment_count} + arity - 1) * g.segment_length;
  return g;
}

uint32_t big_level_arity(uint64_t keys) { return keys >= kThreeWiseBigLevelKeys ? 3 : kFuseArity; }

double fuse_cells_per_key(uint64_t keys, uint32_t arity) {
  return static_cast<double>(fuse_geometry(keys, arity).cells) / static_cast<double>(std::max<uint64_t>(keys, 1));
}

double peak_bits_per_key(double compact_bits_per_key, double bloom_bits_per_key, double active_ratio) {
  return compact_bits_per_key + bloom_bits_per_key * active_ratio / (1 + active_ratio) +
         bloom_bits_per_key * active_ratio;
}

double rebuilt_keys_per_insert(double active_ratio) { return (1 + active_ratio) / active_ratio; }

FprBudget split_fpr_budget(double target_fpr, double active_ratio) {
  FprBudget best;
  const uint32_t least = fingerprint_bits_for(target_fpr);
  for (uint32_t bits = least; bits <= kMaxFingerprintBits; ++bits) {
    const double compact = fuse_fpr(bits);
    if (compact >= target_fpr) continue;
    const double active = target_fpr - compact;
    const LayerGeometry layer = size_layer(0, kReferenceActiveKeys, active / 2);
    if (layer.blocks == 0) continue;
    const double peak = peak_bits_per_key(1.125 * bits, layer.bits_per_key(), active_ratio);
    if (best.fingerprint_bits == 0 || peak < best.peak_bits_per_key) {
      best = {bits, compact, active, active / 2, peak};
    }
  }
  return best;
}

uint32_t max_seals_per_merge(double active_ratio, double merge_ratio) {
  return static_cast<uint32_t>(std::ceil(std::log1p(merge_ratio) / std::log1p(active_ratio)));
}

uint32_t max_runs(double active_ratio, double merge_ratio) {
  return (max_seals_per_merge(active_ratio, merge_ratio) + 1) / 2;
}

double tiered_peak_bits_per_key(double big_bits_per_key, double run_bits_per_key, double bloom_bits_per_key,
                                double active_ratio, double merge_ratio) {
  const double bloom = bloom_bits_per_key * (active_ratio / (1 + active_ratio) + active_ratio);
  const double run_end = (big_bits_per_key + merge_ratio * run_bits_per_key) / (1 + merge_ratio) + bloom;
  return std::max(run_end, peak_bits_per_key(big_bits_per_key, bloom_bits_per_key, active_ratio));
}

double tiered_rebuilt_keys_per_insert(double merge_ratio) { return 1.5 + (1 + merge_ratio) / merge_ratio; }

TieredBudget split_tiered_budget(double target_fpr, double active_ratio, double merge_ratio) {
  TieredBudget best;
  const uint32_t runs = max_runs(active_ratio, merge_ratio);
  for (uint32_t big = fingerprint_bits_for(target_fpr); big <= kMaxFingerprintBits; ++big) {
    for (uint32_t run = big; run <= kMaxFingerprintBits; ++run) {
      const double bloom = target_fpr - fuse_fpr(big) - runs * fuse_fpr(run);
      if (bloom <= 0) continue;
      const LayerGeometry layer = size_layer(0, kReferenceActiveKeys, bloom / 2);
      if (layer.blocks == 0) continue;
      const double peak = tiered_peak_bits_per_key(kShardSizeFactor * big, kShardSizeFactor * run, layer.bits_per_key(),
                                                   active_ratio, merge_ratio);
      if (best.big_fingerprint_bits == 0 || peak < best.peak_bits_per_key) {
        best = {big, run, runs, fuse_fpr(big), fuse_fpr(run), bloom / 2, peak};
      }
    }
  }
  return best;
}

uint32_t partition_bits_for(uint64_t keys, uint32_t fingerprint_bits) {
  const double filter_bytes = static_cast<double>(keys) * 1.125 * fingerprint_bits / 8;
  return fewest_pieces_within_share(keys, kBuildBytesPerKey, filter_bytes, kMinPartitionKeys, 0, 16);
}

double sorted_bits_per_key(uint32_t fingerprint_bits) {
  return fingerprint_bits + 2.0 + 32.0 / kSortedBucketsPerSample;
}

double sorted_job_bytes_per_key(uint32_t fingerprint_bits) {
  return 8.0 + 1.0 + 1.0 + std::ceil(sorted_bits_per_key(fingerprint_bits)) / 8.0;
}

ShardPlan plan_shards(uint64_t keys, uint64_t filter_keys, uint32_t fingerprint_bits, uint64_t min_fuse_shard_keys,
                      uint32_t min_bits, uint32_t max_bits) {
  const double filter_bytes = static_cast<double>(filter_keys) * kShardSizeFactor * fingerprint_bits / 8;
  const uint32_t fuse =
      fewest_pieces_within_share(keys, kJobBytesPerShardKey, filter_bytes, min_fuse_shard_keys, min_bits, max_bits);
  if (!over_share(keys, fuse, kJobBytesPerShardKey, filter_bytes)) return {fuse, false};
  const double sorted_bytes = sorted_job_bytes_per_key(fingerprint_bits);
  return {fewest_pieces_within_share(keys, sorted_bytes, filter_bytes, kMinSortedShardKeys, min_bits, max_bits), true};
}

}  // namespace bloomcrawl::seenfilter
