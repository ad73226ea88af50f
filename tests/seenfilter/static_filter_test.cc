// What every kind of compact shard (static_filter.h: FuseFilter, SortedFilter) must do: find
// nothing when empty, store duplicates once, find every key of clustered inputs, and a measured
// FPR within the 2^-f model's confidence interval.
#include "seenfilter/static_filter.h"

#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include "seenfilter/compact_math.h"
#include "tests/seenfilter/static_filter_test_util.h"

namespace bloomcrawl::seenfilter {
namespace {

using testing::expect_all_found;
using testing::expect_fpr_near;
using testing::random_hashes;

template <typename Filter>
class StaticFilterKinds : public ::testing::Test {};
using Kinds = ::testing::Types<FuseFilter, SortedFilter>;
TYPED_TEST_SUITE(StaticFilterKinds, Kinds);

TYPED_TEST(StaticFilterKinds, EmptySetFindsNothing) {
  const TypeParam filter = TypeParam::build({}, 16);
  EXPECT_EQ(filter.keys(), 0u);
  std::mt19937_64 rng(1);
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(filter.contains(rng()));
  EXPECT_FALSE(TypeParam().contains(42));
}

TYPED_TEST(StaticFilterKinds, DuplicatesAreStoredOnce) {
  std::vector<uint64_t> hashes = random_hashes(5000, 7);
  const std::vector<uint64_t> distinct = hashes;
  hashes.insert(hashes.end(), distinct.begin(), distinct.end());
  for (int i = 0; i < 1000; ++i) hashes.push_back(distinct[0]);
  const TypeParam filter = TypeParam::build(hashes, 16);
  EXPECT_EQ(filter.keys(), distinct.size());
  expect_all_found(filter, distinct);
  const TypeParam all_same = TypeParam::build(std::vector<uint64_t>(10000, 99), 16);
  EXPECT_EQ(all_same.keys(), 1u);
  EXPECT_TRUE(all_same.contains(99));
}

TYPED_TEST(StaticFilterKinds, ClusteredHashesAreFound) {
  // Consecutive integers and one-bit-apart values: the filter's mix must spread them.
  std::vector<uint64_t> hashes;
  for (uint64_t i = 0; i < 20000; ++i) hashes.push_back(i);
  for (int b = 0; b < 64; ++b) hashes.push_back(uint64_t{1} << b);
  expect_all_found(TypeParam::build(hashes, 20), hashes);
  expect_all_found(TypeParam::build(hashes, 1), hashes);  // one fingerprint bit
}

TYPED_TEST(StaticFilterKinds, MeasuredFprMatchesFingerprintBits) {
  for (const auto& [keys, bits] : {std::pair<size_t, uint32_t>{300, 6}, {1000, 8}, {100000, 10}, {300000, 14}}) {
    const std::vector<uint64_t> hashes = random_hashes(keys, keys);
    const TypeParam filter = TypeParam::build(hashes, bits);
    std::mt19937_64 rng(keys + 1);
    const uint64_t probes = 2000000;
    uint64_t positives = 0;
    for (uint64_t i = 0; i < probes; ++i) positives += filter.contains(rng()) ? 1 : 0;
    expect_fpr_near(positives, probes, fuse_fpr(bits));
  }
}

}  // namespace
}  // namespace bloomcrawl::seenfilter
