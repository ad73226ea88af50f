// The compact filter's arithmetic: fingerprint sizing, the FPR budget split, fuse geometry and
// partition sizing; the 2^-f model checked against a measured rate.
#include "seenfilter/compact_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "seenfilter/blocked_bloom_math.h"
#include "seenfilter/compact_layers.h"
#include "seenfilter/fuse_filter.h"

namespace bloomcrawl::seenfilter {
namespace {

TEST(CompactMath, FingerprintBitsAreTheFewestMeetingTheRate) {
  EXPECT_EQ(fingerprint_bits_for(0.5), 1u);
  EXPECT_EQ(fingerprint_bits_for(1e-2), 7u);   // 2^-7 = 0.0078
  EXPECT_EQ(fingerprint_bits_for(1e-6), 20u);  // 2^-20 = 9.5e-7
  EXPECT_EQ(fingerprint_bits_for(1e-12), kMaxFingerprintBits + 1);
  for (double fpr : {1e-1, 1e-3, 1e-5, 1e-8}) {
    const uint32_t bits = fingerprint_bits_for(fpr);
    EXPECT_LE(fuse_fpr(bits), fpr);
    EXPECT_GT(fuse_fpr(bits - 1), fpr);
  }
}

TEST(CompactMath, BudgetSplitMeetsTheTarget) {
  for (double target : {1e-2, 1e-4, 1e-6, 1e-8}) {
    const FprBudget b = split_fpr_budget(target, 0.125);
    ASSERT_GT(b.fingerprint_bits, 0u) << target;
    EXPECT_DOUBLE_EQ(b.compact_fpr, fuse_fpr(b.fingerprint_bits));
    EXPECT_LE(b.compact_fpr + b.active_fpr, target * (1 + 1e-12));
    EXPECT_GT(b.active_fpr, 0);
  }
  // At 1e-6 with an active layer of 1/8 of the keys: 21-bit fingerprints, two Bloom layers of
  // (1e-6 - 2^-21) / 2 each, and a peak of about 34 bits per key at the end of a rebuild: the
  // one-level scheme misses the 32 (docs/seenfilter.md, "The rebuild scheme").
  const FprBudget b = split_fpr_budget(1e-6, 0.125);
  EXPECT_EQ(b.fingerprint_bits, 21u);
  EXPECT_DOUBLE_EQ(b.bloom_layer_fpr, b.active_fpr / 2);
  EXPECT_GT(b.peak_bits_per_key, 33.0);
  EXPECT_LT(b.peak_bits_per_key, 35.0);
  // The split is a minimum over f: one bit more or less costs more.
  for (int delta : {-1, 1}) {
    const uint32_t bits = b.fingerprint_bits + delta;
    const double active = 1e-6 - fuse_fpr(bits);
    if (active <= 0) continue;
    const double bloom = size_layer(0, uint64_t{1} << 20, active / 2).bits_per_key();
    EXPECT_GT(peak_bits_per_key(1.125 * bits, bloom, 0.125), b.peak_bits_per_key);
  }
  // The trade: an active ratio of 1/12 brings the peak under 32 at 13 rebuilt keys per insert
  // instead of 9.
  EXPECT_LT(split_fpr_budget(1e-6, 1.0 / 12).peak_bits_per_key, 32.0);
  EXPECT_DOUBLE_EQ(rebuilt_keys_per_insert(0.125), 9.0);
  EXPECT_DOUBLE_EQ(rebuilt_keys_per_insert(1.0 / 12), 13.0);
}

TEST(CompactMath, TieredBudgetMeetsTheTargetWithEveryRun) {
  for (double target : {1e-3, 1e-4, 1e-6, 1e-8}) {
    const TieredBudget b = split_tiered_budget(target, kTieredActiveRatio, kMergeRatio);
    ASSERT_GT(b.big_fingerprint_bits, 0u) << target;
    EXPECT_GE(b.run_fingerprint_bits, b.big_fingerprint_bits);
    EXPECT_DOUBLE_EQ(b.big_fpr, fuse_fpr(b.big_fingerprint_bits));
    EXPECT_DOUBLE_EQ(b.run_fpr, fuse_fpr(b.run_fingerprint_bits));
    EXPECT_LE(b.big_fpr + b.max_runs * b.run_fpr + 2 * b.bloom_layer_fpr, target * (1 + 1e-12)) << target;
    EXPECT_GT(b.bloom_layer_fpr, 0.0);
  }
}

TEST(CompactMath, RunsAreBoundedByTheGeometricGrowthOfTheKeys) {
  // k seals of at least a·(keys held) each pass r of the big level once (1 + a)^k > 1 + r.
  EXPECT_EQ(max_seals_per_merge(1.0 / 16, 0.5), 7u);      // 1.0625^6 = 1.44, 1.0625^7 = 1.53
  EXPECT_EQ(max_seals_per_merge(1.0 / 20, 1.0 / 3), 6u);  // 1.05^5 = 1.28, 1.05^6 = 1.34
  EXPECT_EQ(max_seals_per_merge(0.125, 0.5), 4u);
  // Built in pairs: half as many runs, rounded up.
  EXPECT_EQ(max_runs(1.0 / 16, 0.5), 4u);
  EXPECT_EQ(max_runs(1.0 / 20, 1.0 / 3), 3u);
  EXPECT_EQ(max_runs(0.125, 0.5), 2u);
  EXPECT_DOUBLE_EQ(tiered_rebuilt_keys_per_insert(0.5), 4.5);
  EXPECT_DOUBLE_EQ(tiered_rebuilt_keys_per_insert(1.0 / 3), 5.5);
}

TEST(CompactMath, TieredPeakIsUnderThirtyTwoBitsAtOneInAMillion) {
  // The chosen a = 1/20, r = 1/3 at 1e-6 (docs/seenfilter.md, "Two levels, tiered"): the peak at
  // shards' size factor is under the 32 bits per key, where the one-level scheme at
  // a = 1/8 is at 34 with 9 keys rebuilt per insert instead of 5.
  const TieredBudget b = split_tiered_budget(1e-6, kTieredActiveRatio, kMergeRatio);
  EXPECT_EQ(b.max_runs, 3u);
  EXPECT_LT(b.peak_bits_per_key, 31.0);
  EXPECT_GT(b.peak_bits_per_key, 29.0);
  // The peak is the larger of a run build's end and a merge's end; with run bits no smaller than
  // the big level's, the run build's end dominates.
  const double bloom = size_layer(0, uint64_t{1} << 20, b.bloom_layer_fpr).bits_per_key();
  const double big = kShardSizeFactor * b.big_fingerprint_bits;
  const double run = kShardSizeFactor * b.run_fingerprint_bits;
  const double a = kTieredActiveRatio;
  const double r = kMergeRatio;
  EXPECT_NEAR(b.peak_bits_per_key, (big + r * run) / (1 + r) + bloom * (a / (1 + a) + a), 1e-9);
  EXPECT_GE(b.peak_bits_per_key, peak_bits_per_key(big, bloom, a));
  // A minimum over both fingerprint sizes: one bit more or less for either costs more (or misses).
  for (int big_delta : {-1, 0, 1}) {
    for (int run_delta : {-1, 0, 1}) {
      if (big_delta == 0 && run_delta == 0) continue;
      const uint32_t fb = b.big_fingerprint_bits + big_delta;
      const uint32_t fr = b.run_fingerprint_bits + run_delta;
      const double left = 1e-6 - fuse_fpr(fb) - b.max_runs * fuse_fpr(fr);
      if (left <= 0 || fr < fb) continue;
      const double bb = size_layer(0, uint64_t{1} << 20, left / 2).bits_per_key();
      EXPECT_GE(tiered_peak_bits_per_key(kShardSizeFactor * fb, kShardSizeFactor * fr, bb, a, r), b.peak_bits_per_key);
    }
  }
}

// Past kThreeWiseBigLevelKeys the big level is 3-wise, and its larger size factor still keeps the
// peak under the 32 bits per key: there a big shard holds at least 2^25 / 2^kMaxShardBits
// = 2^17 keys, built in partitions of 2^17-2^18 (the largest size factor among them).
TEST(CompactMath, ThreeWiseBigLevelsKeepThePeakUnderThirtyTwoBits) {
  EXPECT_EQ(big_level_arity(0), kFuseArity);
  EXPECT_EQ(big_level_arity(kThreeWiseBigLevelKeys - 1), kFuseArity);
  EXPECT_EQ(big_level_arity(kThreeWiseBigLevelKeys), 3u);
  EXPECT_EQ(big_level_arity(uint64_t{1} << 40), 3u);
  double factor = 0;
  for (uint64_t n = kThreeWiseBigLevelKeys >> kMaxShardBits; n <= (uint64_t{1} << 18); n += 1024) {
    factor = std::max(factor, fuse_cells_per_key(n, 3));
  }
  EXPECT_GT(factor, kShardSizeFactor);  // the budget's factor is 4-wise's at small shards
  const TieredBudget b = split_tiered_budget(1e-6, kTieredActiveRatio, kMergeRatio);
  const double bloom = size_layer(0, uint64_t{1} << 20, b.bloom_layer_fpr).bits_per_key();
  const double peak =
      tiered_peak_bits_per_key(factor * b.big_fingerprint_bits, kShardSizeFactor * b.run_fingerprint_bits, bloom,
                               kTieredActiveRatio, kMergeRatio);
  EXPECT_LT(peak, 32.0);
  EXPECT_GT(peak, b.peak_bits_per_key);
}

TEST(CompactMath, FuseGeometryFollowsGrafAndLemire) {
  EXPECT_NEAR(fuse_cells_per_key(10000000, 3), 1.125, 0.01);
  EXPECT_NEAR(fuse_cells_per_key(10000000, 4), 1.075, 0.01);
  EXPECT_GT(fuse_cells_per_key(10000, 3), 1.2);  // small sets need more room
  EXPECT_GT(fuse_cells_per_key(10000, 4), 1.15);
  // Four cells per key take less room at every size a rebuild builds.
  for (uint64_t n = 1 << 12; n <= (1 << 18); n *= 2) EXPECT_LT(fuse_cells_per_key(n, 4), fuse_cells_per_key(n, 3)) << n;
  for (uint32_t arity : {3u, 4u}) {
    for (uint64_t n : {1, 2, 3, 10, 1000, 1000000}) {
      const FuseGeometry g = fuse_geometry(n, arity);
      EXPECT_GE(g.segment_count, 1u);
      EXPECT_EQ(g.cells, (uint64_t{g.segment_count} + arity - 1) * g.segment_length);
      EXPECT_GE(g.cells, n);
      EXPECT_LE(g.segment_length, uint32_t{1} << 18);
    }
  }
}

TEST(CompactMath, PartitionsBoundTheRebuildScratch) {
  EXPECT_EQ(partition_bits_for(1000, 21), 0u);  // tiny filters are one partition
  for (uint64_t keys : {uint64_t{100000000}, uint64_t{1000000000}}) {
    const uint32_t bits = partition_bits_for(keys, 21);
    const double per_partition = static_cast<double>(keys >> bits);
    const double filter_bytes = static_cast<double>(keys) * 1.125 * 21 / 8;
    EXPECT_LE(per_partition * kBuildBytesPerKey * 1.1, kRebuildMemoryShare * filter_bytes) << keys;
    EXPECT_GE(keys >> bits, kMinPartitionKeys);
  }
}

TEST(CompactMath, ShardPlansKeepAJobWithinTheMemoryShare) {
  constexpr uint32_t kBits = 21;
  constexpr uint64_t kFloor = uint64_t{1} << 13;
  const auto within_share = [&](uint64_t keys, uint64_t filter_keys, ShardPlan plan) {
    const double shard_keys = static_cast<double>(keys >> plan.bits) * 1.1;  // the largest shard
    const double filter_bytes = static_cast<double>(filter_keys) * kShardSizeFactor * kBits / 8;
    const double per_key = plan.sorted ? sorted_job_bytes_per_key(kBits) : kJobBytesPerShardKey;
    return shard_keys * per_key <= kRebuildMemoryShare * filter_bytes;
  };
  bool saw_fuse = false;
  bool saw_sorted = false;
  for (uint64_t keys = uint64_t{1} << 12; keys <= (uint64_t{1} << 32); keys *= 3) {
    const ShardPlan plan = plan_shards(keys, keys, kBits, kFloor, 0, 8);
    if (plan.sorted) {
      saw_sorted = true;
      uint32_t fuse_at_floor = 0;  // the most fuse shards of at least kFloor keys
      while (fuse_at_floor < 8 && (keys >> (fuse_at_floor + 1)) >= kFloor) ++fuse_at_floor;
      EXPECT_FALSE(within_share(keys, keys, {fuse_at_floor, false})) << keys << ": fuse shards would fit";
      EXPECT_TRUE(within_share(keys, keys, plan) || (keys >> (plan.bits + 1)) < kMinSortedShardKeys) << keys;
    } else {
      saw_fuse = true;
      EXPECT_TRUE(plan.bits == 8 || within_share(keys, keys, plan)) << keys;
      EXPECT_GE(keys >> plan.bits, kFloor) << keys;
    }
    if (plan.bits > 0) {
      EXPECT_FALSE(within_share(keys, keys, {plan.bits - 1, plan.sorted})) << keys << ": not the fewest shards";
    }
  }
  EXPECT_TRUE(saw_fuse && saw_sorted);
  // A filter of 100k keys (about 340 KB) is over the share in fuse shards of 2^13 keys, within it
  // in sorted ones.
  const ShardPlan small = plan_shards(100000, 100000, kBits, kFloor, 0, 8);
  EXPECT_TRUE(small.sorted);
  EXPECT_TRUE(within_share(100000, 100000, small));
  // A big level of 10M keys: within the share in 128 fuse shards of 78k keys, not at the floor.
  const ShardPlan big = plan_shards(10000000, 10000000, kBits, kFloor, 0, 8);
  EXPECT_EQ(big.bits, 7u);
  EXPECT_FALSE(big.sorted);
  // Never fewer shards than min_bits asks (a level's shards only get finer)...
  EXPECT_EQ(plan_shards(1000, 1000, kBits, kFloor, 3, 8).bits, 3u);
  // ... and too few keys for two sorted shards of the floor: one.
  EXPECT_EQ(plan_shards(kMinSortedShardKeys + 10, kMinSortedShardKeys + 10, kBits, kFloor, 0, 8).bits, 0u);
  // A run (a twentieth of the filter) needs fewer shards than the filter it joins would...
  const ShardPlan run = plan_shards(500000, 10000000, kBits, kFloor / 2, 0, 7);
  EXPECT_LT(run.bits, 7u);
  EXPECT_TRUE(within_share(500000, 10000000, run));
  // ... and never more than the big level's.
  EXPECT_LE(plan_shards(500000, 10000000, kBits, 1, 0, 1).bits, 1u);
}

TEST(CompactMath, BuildScratchMatchesTheModel) {
  std::mt19937_64 rng(9);
  std::vector<uint64_t> hashes(1 << 17);
  for (uint64_t& h : hashes) h = rng();
  FuseFilterBuilder builder(hashes.size(), 21, 0);
  builder.add_partition(0, hashes);
  EXPECT_LE(static_cast<double>(builder.peak_scratch_bytes()), kBuildBytesPerKey * static_cast<double>(1 << 17));
}

}  // namespace
}  // namespace bloomcrawl::seenfilter
