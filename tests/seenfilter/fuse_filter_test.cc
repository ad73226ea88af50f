// The static binary fuse filter: no false negatives on tiny and partitioned sets at either arity,
// its builder's scratch and misuse, and its file format round trip (versions 1 and 2) and
// rejection of damaged bytes. What every static filter must do: static_filter_test.cc.
#include "seenfilter/fuse_filter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "base/data_error.h"
#include "tests/seenfilter/static_filter_test_util.h"

namespace bloomcrawl::seenfilter {
namespace {

using testing::expect_all_found;
using testing::expect_fpr_near;
using testing::put_le_at;
using testing::random_hashes;
using testing::reseal;

TEST(FuseFilter, TinySetsAreFound) {
  for (size_t n = 1; n <= 40; ++n) {
    const std::vector<uint64_t> hashes = random_hashes(n, n);
    const FuseFilter filter = FuseFilter::build(hashes, 12);
    EXPECT_EQ(filter.keys(), n);
    expect_all_found(filter, hashes);
  }
}

TEST(FuseFilter, PartitionedBuildFindsEveryKey) {
  const std::vector<uint64_t> hashes = random_hashes(200000, 3);
  FuseFilterBuilder builder(hashes.size(), 21, 4);
  std::vector<std::vector<uint64_t>> parts(builder.partitions());
  for (uint64_t h : hashes) parts[builder.partition_of(h)].push_back(h);
  for (uint32_t i = 0; i < builder.partitions(); ++i) builder.add_partition(i, parts[i]);
  const FuseFilter filter = builder.finish();
  EXPECT_EQ(filter.partition_bits(), 4u);
  EXPECT_EQ(filter.keys(), hashes.size());
  expect_all_found(filter, hashes);
  // 12,500 keys per partition: the size factor of a set that small (about 1.3), and no more.
  EXPECT_LT(filter.bits_per_key(), 21 * fuse_cells_per_key(hashes.size() / 16) * 1.03);
}

TEST(FuseFilter, AddAllGroupsHashesByPartition) {
  // As a compact rebuild builds a large shard: hashes in arrival order, duplicates among them,
  // one partition empty (no hash has its top bits), the scratch shared with a later build.
  std::vector<uint64_t> hashes = random_hashes(150000, 21);
  std::erase_if(hashes, [](uint64_t h) { return h >> 61 == 5; });
  for (size_t i = 0; i < 100; ++i) hashes.push_back(hashes[i * 7]);
  FuseBuildScratch scratch;
  for (const uint32_t bits : {3u, 0u}) {
    FuseFilterBuilder builder(hashes.size(), 21, bits, &scratch);
    std::vector<uint64_t> consumed = hashes;
    builder.add_all(consumed);
    const FuseFilter filter = builder.finish();
    EXPECT_EQ(filter.partition_bits(), bits);
    EXPECT_EQ(filter.keys(), hashes.size() - 100);
    expect_all_found(filter, hashes);
    const std::vector<uint64_t> absent = random_hashes(1'000'000, 22);
    uint64_t positives = 0;
    for (uint64_t h : absent) positives += filter.contains(h) ? 1 : 0;
    expect_fpr_near(positives, absent.size(), std::ldexp(1.0, -21));
    EXPECT_GE(scratch.bytes(), bits == 0 ? 0 : hashes.size() * sizeof(uint64_t));  // grouped counted
  }
  FuseFilterBuilder twice(hashes.size(), 21, 3, &scratch);
  std::vector<uint64_t> first;
  twice.add_partition(0, first);
  EXPECT_THROW(twice.add_all(hashes), std::invalid_argument);
}

TEST(FuseFilter, SharedScratchServesBuildsOfAnySize) {
  // A rebuild reuses one scratch for shard after shard: larger, smaller, one with a single
  // duplicate among many keys (peeling fails, then the deduplicated retry succeeds), empty.
  FuseBuildScratch scratch;
  std::vector<uint64_t> one_duplicate = random_hashes(70000, 11);
  one_duplicate.push_back(one_duplicate[12345]);
  for (const std::vector<uint64_t>& hashes :
       {random_hashes(90000, 9), random_hashes(3000, 10), one_duplicate, std::vector<uint64_t>{}}) {
    FuseFilterBuilder builder(hashes.size(), 18, 0, &scratch);
    std::vector<uint64_t> consumed = hashes;
    builder.add_partition(0, consumed);
    const FuseFilter filter = builder.finish();
    EXPECT_EQ(filter.keys(), hashes.size() == 70001 ? 70000u : hashes.size());
    expect_all_found(filter, hashes);
  }
}

TEST(FuseFilter, BuilderRejectsMisuse) {
  FuseFilterBuilder builder(100, 8, 1);
  std::vector<uint64_t> wrong{~uint64_t{0}};  // top bit set: partition 1
  EXPECT_THROW(builder.add_partition(0, wrong), std::invalid_argument);
  std::vector<uint64_t> none;
  EXPECT_THROW(builder.add_partition(1, none), std::invalid_argument);
  EXPECT_THROW(FuseFilterBuilder(10, 0), std::invalid_argument);
  EXPECT_THROW(FuseFilterBuilder(10, 33), std::invalid_argument);
}

TEST(FuseFilter, EncodeDecodeRoundTrip) {
  const std::vector<uint64_t> hashes = random_hashes(30000, 11);
  const FuseFilter filter = FuseFilter::build(hashes, 21);
  const std::string bytes = filter.encode();
  const FuseFilter back = FuseFilter::decode(bytes, "f");
  EXPECT_EQ(back.keys(), filter.keys());
  EXPECT_EQ(back.cells(), filter.cells());
  expect_all_found(back, hashes);
  EXPECT_EQ(back.encode(), bytes);
  EXPECT_EQ(FuseFilter::decode(FuseFilter().encode(), "empty").keys(), 0u);
}

// A version 1 file (3-wise, written before the 4-wise filters; the arity field was reserved, 0):
// the same bytes a 3-wise filter encodes as version 2, with version 1 and a zero arity.
std::string as_version_one(std::string bytes) {
  put_le_at(bytes, 8, 1, 4);
  put_le_at(bytes, 20, 0, 4);
  reseal(bytes);
  return bytes;
}

TEST(FuseFilter, ThreeAndFourCellsPerKeyFindEveryKey) {
  for (uint32_t arity : {3u, 4u}) {
    for (size_t n : {1, 2, 7, 100, 5000, 70000}) {
      const std::vector<uint64_t> hashes = random_hashes(n, n + arity);
      const FuseFilter filter = FuseFilter::build(hashes, 16, arity);
      EXPECT_EQ(filter.arity(), arity);
      EXPECT_EQ(filter.keys(), n);
      expect_all_found(filter, hashes);
    }
  }
  // Four cells per key need fewer cells at the sizes a rebuild builds.
  const std::vector<uint64_t> hashes = random_hashes(1 << 15, 3);
  EXPECT_LT(FuseFilter::build(hashes, 21, 4).bits_per_key(), FuseFilter::build(hashes, 21, 3).bits_per_key() - 0.5);
  EXPECT_THROW(FuseFilterBuilder(10, 21, 0, nullptr, 5), std::invalid_argument);
}

TEST(FuseFilter, VersionOneFilesLoadAsThreeCellsPerKey) {
  const std::vector<uint64_t> hashes = random_hashes(20000, 17);
  const std::string v1 = as_version_one(FuseFilter::build(hashes, 21, 3).encode());
  const FuseFilter back = FuseFilter::decode(v1, "v1");
  EXPECT_EQ(back.arity(), 3u);
  expect_all_found(back, hashes);
  // A version 1 file of a 4-wise filter cannot exist: read as 3-wise its cells do not add up.
  EXPECT_THROW(FuseFilter::decode(as_version_one(FuseFilter::build(hashes, 21, 4).encode()), "v1"), CheckpointError);
  std::string bad_arity = FuseFilter::build(hashes, 21, 4).encode();
  put_le_at(bad_arity, 20, 5, 4);
  reseal(bad_arity);
  EXPECT_THROW(FuseFilter::decode(bad_arity, "arity"), CheckpointError);
}

TEST(FuseFilter, DecodeRejectsDamage) {
  const std::string bytes = FuseFilter::build(random_hashes(1000, 5), 9).encode();
  std::string flipped = bytes;
  flipped[100] = static_cast<char>(flipped[100] ^ 1);
  EXPECT_THROW(FuseFilter::decode(flipped, "f"), CheckpointError);
  EXPECT_THROW(FuseFilter::decode(bytes.substr(0, bytes.size() - 1), "f"), CheckpointError);
  EXPECT_THROW(FuseFilter::decode(bytes.substr(0, 20), "f"), CheckpointError);
  EXPECT_THROW(FuseFilter::decode(std::string(bytes.size(), 'x'), "f"), CheckpointError);
}

}  // namespace
}  // namespace bloomcrawl::seenfilter
