// The blocked-filter FPR model: limits, the blocking penalty, and sizing that meets its target.
#include "seenfilter/blocked_bloom_math.h"

#include <gtest/gtest.h>

#include <cmath>

namespace bloomcrawl::seenfilter {
namespace {

TEST(BlockedBloomMath, EmptyLayerHasNoFalsePositives) { EXPECT_EQ(blocked_fpr(0.0, 8), 0.0); }

TEST(BlockedBloomMath, FprRisesWithLoad) {
  EXPECT_LT(blocked_fpr(10, 8), blocked_fpr(20, 8));
  EXPECT_LT(blocked_fpr(20, 8), blocked_fpr(40, 8));
  EXPECT_EQ(blocked_fpr(5000, 8), 1.0);
}

TEST(BlockedBloomMath, BlockingCostsMoreThanTheClassicFormula) {
  // 16 bits/key: classic optimum ~ 4.6e-4; a 512-bit blocked filter is measurably worse.
  const double load = 512.0 / 16.0;
  const uint32_t k = best_probes(load);
  const double classic = std::pow(1.0 - std::exp(-static_cast<double>(k) / 16.0), k);
  EXPECT_GT(blocked_fpr(load, k), classic * 1.05);
}

TEST(BlockedBloomMath, SizedLayerMeetsTargetAndIsMinimal) {
  for (double target : {1e-2, 1e-4, 1e-6, 1e-9}) {
    const LayerGeometry g = size_layer(3, 100000, target);
    ASSERT_GT(g.blocks, 0u) << target;
    EXPECT_EQ(g.index, 3u);
    const double load = 100000.0 / static_cast<double>(g.blocks);
    EXPECT_LE(blocked_fpr(load, g.probes), target);
    const double smaller = 100000.0 / static_cast<double>(g.blocks - 1);
    EXPECT_GT(blocked_fpr(smaller, best_probes(smaller)), target);
  }
}

TEST(BlockedBloomMath, UnreachableTargetGivesNoBlocks) { EXPECT_EQ(size_layer(0, 1000, 1e-300).blocks, 0u); }

}  // namespace
}  // namespace bloomcrawl::seenfilter
