// The sorted (Elias-Fano) static filter: no false negatives at every size around the bucket
// samples and at every fingerprint width, f + 2.25 bits per key at any size, and its file format
// round trip and rejection of damaged bytes, also through StaticFilter. What every static filter
// must do: static_filter_test.cc.
#include "seenfilter/sorted_filter.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

#include "base/data_error.h"
#include "seenfilter/static_filter.h"
#include "seenfilter/zero_scan.h"
#include "tests/seenfilter/static_filter_test_util.h"

namespace bloomcrawl::seenfilter {
namespace {

using testing::expect_all_found;
using testing::put_le_at;
using testing::random_hashes;
using testing::reseal;

TEST(SortedFilter, SetsOfEverySizeAroundTheSamplesAreFound) {
  for (size_t n = 1; n <= 700; n += (n < 300 ? 1 : 37)) {
    for (uint32_t bits : {1u, 7u, 21u, 32u}) {
      const std::vector<uint64_t> hashes = random_hashes(n, n * 41 + bits);
      const SortedFilter filter = SortedFilter::build(hashes, bits);
      ASSERT_EQ(filter.keys(), n);
      expect_all_found(filter, hashes);
    }
  }
}

// A window of probes prefetches each key, keeps the value prefetch() computed and tests it with
// contains_value(): that answers as contains() does, for present and absent keys, at every size
// around the samples and for an empty filter.
TEST(SortedFilter, APrefetchedValueAnswersAsTheHashDoes) {
  for (size_t n : {0, 1, 2, 127, 128, 129, 1000, 20000}) {
    const std::vector<uint64_t> hashes = random_hashes(n, n + 7);
    const SortedFilter filter = SortedFilter::build(hashes, 9);  // 1/512: absent keys often pass
    const SortedFilter::Lookup lookup = filter.lookup();
    for (const uint64_t h : hashes) {
      EXPECT_EQ(lookup.prefetch(h), lookup.value_of(h));
      EXPECT_TRUE(lookup.contains_value(lookup.prefetch(h)));
    }
    size_t passed = 0;
    for (const uint64_t h : random_hashes(20000, n + 99)) {
      const bool found = filter.contains(h);
      passed += found ? 1 : 0;
      EXPECT_EQ(lookup.contains_value(lookup.prefetch(h)), found);
    }
    if (n >= 1000) {
      EXPECT_GT(passed, 0u);  // the absent keys did reach both answers
    }
  }
}

// A source over `hashes` for build_streamed, in chunks of `chunk` hashes; its `pass`-th reading
// (from 1) streams `replaced` instead, or fails when that is empty.
SortedFilter::HashSource source_of(const std::vector<uint64_t>& hashes, size_t chunk, int pass = 0,
                                   std::vector<uint64_t> replaced = {}) {
  auto readings = std::make_shared<int>(0);
  return [&hashes, chunk, pass, replaced = std::move(replaced), readings](const auto& visit) {
    const std::vector<uint64_t>& from = ++*readings == pass ? replaced : hashes;
    if (&from == &replaced && replaced.empty()) return false;
    for (size_t i = 0; i < from.size(); i += chunk) {
      visit(std::span(from).subspan(i, std::min(chunk, from.size() - i)));
    }
    return true;
  };
}

// Streamed from a source in chunks, the build is the one build() makes from the same hashes, at
// every size around the buckets' table, with duplicates and with hashes chosen to share one bucket.
TEST(SortedFilter, AStreamedBuildIsTheBuildOfItsHashes) {
  std::vector<uint64_t> keys;
  std::vector<uint32_t> buckets;
  for (size_t n : {0, 1, 2, 3, 5, 64, 100, 1000, 5000}) {
    std::vector<uint64_t> hashes = random_hashes(n, n + 3);
    if (n >= 100) hashes.insert(hashes.end(), hashes.begin(), hashes.begin() + 50);  // duplicates
    for (const size_t chunk : {size_t{1}, size_t{13}, hashes.size() + 1}) {
      const std::optional<SortedFilter> streamed =
          SortedFilter::build_streamed(hashes.size(), 21, source_of(hashes, chunk), keys, buckets);
      ASSERT_TRUE(streamed) << n;
      EXPECT_EQ(streamed->encode(), SortedFilter::build(hashes, 21).encode()) << n << " hashes, chunk " << chunk;
      EXPECT_LE(buckets.size(), hashes.size() / 4 + 3);  // the table's byte per key
    }
  }
  // Every hash in the table's first bucket (its top bits chosen): that bucket is sorted whole.
  std::vector<uint64_t> colliding;
  std::mt19937_64 rng(9);
  while (colliding.size() < 2000) {
    const uint64_t h = rng();
    if (SortedFilter::bucket_of(h, SortedFilter::streamed_buckets(2000), 0) == 0) colliding.push_back(h);
  }
  const std::optional<SortedFilter> streamed =
      SortedFilter::build_streamed(colliding.size(), 21, source_of(colliding, 64), keys, buckets);
  ASSERT_TRUE(streamed);
  EXPECT_EQ(streamed->encode(), SortedFilter::build(colliding, 21).encode());
  expect_all_found(*streamed, colliding);
}

// A source that fails, streams another count, or streams other hashes the second time (a file
// damaged between the passes: more of them in some bucket than were counted) builds nothing.
TEST(SortedFilter, AStreamedBuildFromABadSourceBuildsNothing) {
  const std::vector<uint64_t> hashes = random_hashes(3000, 17);
  std::vector<uint64_t> keys;
  std::vector<uint32_t> buckets;
  const auto build = [&](uint64_t count, const SortedFilter::HashSource& source) {
    return SortedFilter::build_streamed(count, 21, source, keys, buckets);
  };
  EXPECT_FALSE(build(hashes.size(), source_of(hashes, 100, 1)));  // fails on the first reading
  EXPECT_FALSE(build(hashes.size(), source_of(hashes, 100, 2)));  // on the second
  EXPECT_FALSE(build(hashes.size() + 1, source_of(hashes, 100)));
  EXPECT_FALSE(build(hashes.size() - 1, source_of(hashes, 100)));
  const std::vector<uint64_t> shorter(hashes.begin(), hashes.end() - 1);
  EXPECT_FALSE(build(hashes.size(), source_of(hashes, 100, 2, shorter)));
  const std::vector<uint64_t> other(hashes.size(), hashes.front());  // all in one bucket the second time
  EXPECT_FALSE(build(hashes.size(), source_of(hashes, 100, 2, other)));
  EXPECT_TRUE(build(hashes.size(), source_of(hashes, 100))) << "the same scratch builds again";
}

// A lookup reads a bucket's size from one 64-bit word of the unary part; a bucket of more keys
// than that (hashes chosen to collide) is still searched to its end, so each of its keys is found.
TEST(SortedFilter, ABucketOfMoreKeysThanAWordHoldsIsSearchedToItsEnd) {
  constexpr uint64_t kKeys = 150;
  constexpr uint64_t kInBucket = 100;
  constexpr uint32_t kBits = 8;
  std::mt19937_64 rng(3);
  std::vector<uint64_t> hashes;
  while (hashes.size() < kKeys) {
    const uint64_t h = rng();
    if ((SortedFilter::bucket_of(h, kKeys, kBits) == 7) == (hashes.size() < kInBucket)) hashes.push_back(h);
  }
  const SortedFilter filter = SortedFilter::build(hashes, kBits);
  ASSERT_EQ(filter.keys(), kKeys);
  expect_all_found(filter, hashes);
  const SortedFilter decoded = SortedFilter::decode(filter.encode(), "mem");
  expect_all_found(decoded, hashes);
}

TEST(SortedFilter, BuildInPlaceConsumesItsInput) {
  std::vector<uint64_t> hashes = random_hashes(3000, 5);
  const std::vector<uint64_t> kept = hashes;
  const SortedFilter filter = SortedFilter::build_in_place(hashes, 12);
  EXPECT_NE(hashes, kept);
  expect_all_found(filter, kept);
  EXPECT_THROW(SortedFilter::build(kept, 0), std::invalid_argument);
  EXPECT_THROW(SortedFilter::build(kept, 33), std::invalid_argument);
}

TEST(SortedFilter, BitsPerKeyDoNotGrowAsTheSetShrinks) {
  for (size_t n : {size_t{256}, size_t{4096}, size_t{1} << 16}) {
    const SortedFilter filter = SortedFilter::build(random_hashes(n, n), 21);
    // f + 2 (the unary part) + 32/128 (samples) + padding words: the unary part's (in memory,
    // kPassZerosWords of them) and the low parts' one.
    EXPECT_NEAR(filter.bits_per_key(), 21 + 2.25 + 64.0 * (kPassZerosWords + 1) / static_cast<double>(n), 0.3) << n;
  }
}

TEST(SortedFilter, EncodeDecodeRoundTrip) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{129}, size_t{30000}}) {
    const std::vector<uint64_t> hashes = random_hashes(n, 11 + n);
    const SortedFilter filter = SortedFilter::build(hashes, 21);
    const std::string bytes = filter.encode();
    const SortedFilter back = SortedFilter::decode(bytes, "f");
    EXPECT_EQ(back.keys(), filter.keys());
    EXPECT_EQ(back.bytes(), filter.bytes());
    expect_all_found(back, hashes);
    EXPECT_EQ(back.encode(), bytes);
    // Either kind of file decodes as a shard, told apart by its magic.
    const StaticFilter shard = StaticFilter::decode(bytes, "f");
    EXPECT_NE(shard.sorted(), nullptr);
    EXPECT_EQ(shard.keys(), n);
    expect_all_found(shard, hashes);
    EXPECT_EQ(StaticFilter::decode(FuseFilter::build(hashes, 21).encode(), "f").sorted(), nullptr);
  }
}

TEST(SortedFilter, DecodeRejectsDamage) {
  const std::string bytes = SortedFilter::build(random_hashes(1000, 5), 9).encode();
  const auto rejected = [](std::string damaged) {
    reseal(damaged);  // past the checksum: the structure's own checks must catch it
    EXPECT_THROW(SortedFilter::decode(damaged, "f"), CheckpointError);
  };
  std::string flipped = bytes;
  flipped[100] = static_cast<char>(flipped[100] ^ 1);
  EXPECT_THROW(SortedFilter::decode(flipped, "f"), CheckpointError);  // the checksum
  EXPECT_THROW(SortedFilter::decode(bytes.substr(0, bytes.size() - 1), "f"), CheckpointError);
  EXPECT_THROW(SortedFilter::decode(bytes.substr(0, 20), "f"), CheckpointError);
  EXPECT_THROW(SortedFilter::decode(std::string(bytes.size(), 'x'), "f"), CheckpointError);
  struct HeaderDamage {
    size_t at;
    uint64_t value;
    int width;
  };
  // version, fingerprint bits, keys, reserved
  for (const HeaderDamage& d : {HeaderDamage{8, 2, 4}, {12, 33, 4}, {16, 999, 8}, {24, 1, 8}}) {
    std::string damaged = bytes;
    put_le_at(damaged, d.at, d.value, d.width);
    rejected(damaged);
  }
  // The unary part: a cleared one loses a key; a bit in the padding is past its end; a sample
  // that is not its bucket's start.
  const size_t high_at = 32;
  const size_t high_words = (2 * 1000 + 63) / 64 + 1;
  std::string cleared = bytes;
  size_t byte = high_at;
  while (cleared[byte] == 0) ++byte;
  cleared[byte] = static_cast<char>(cleared[byte] & (cleared[byte] - 1));
  rejected(cleared);
  std::string past_end = bytes;
  put_le_at(past_end, high_at + (high_words - 1) * 8, 1, 8);  // a bit in the padding word
  rejected(past_end);
  const size_t samples_at = bytes.size() - 8 - size_t{8} * 4;  // ceil(1000 / 128) = 8 samples
  std::string sample = bytes;
  put_le_at(sample, samples_at + 4, 3, 4);
  rejected(sample);
}

}  // namespace
}  // namespace bloomcrawl::seenfilter
