// sort_hashes (hash_sort.h) gives std::sort's order: uniform hashes at sizes around the radix
// pass's threshold and nested passes, and inputs it is not built for (equal hashes, a few values,
// already sorted or reversed, all in one bucket, buckets deep on one side).
#include "seenfilter/hash_sort.h"

#include <algorithm>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace bloomcrawl::seenfilter {
namespace {

void expect_sorted_as_std_sort(std::vector<uint64_t> hashes) {
  std::vector<uint64_t> expected = hashes;
  std::sort(expected.begin(), expected.end());
  sort_hashes(hashes);
  ASSERT_EQ(hashes, expected) << hashes.size() << " hashes";
}

std::vector<uint64_t> uniform(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> out(n);
  for (uint64_t& h : out) h = rng();
  return out;
}

TEST(HashSort, UniformHashesOfManySizes) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{31}, size_t{32}, size_t{33}, size_t{100}, size_t{1000},
                   size_t{2047}, size_t{2048}, size_t{2049}, size_t{5000}, size_t{100'000}, size_t{1'500'000}}) {
    expect_sorted_as_std_sort(uniform(n, n));
  }
}

TEST(HashSort, InputsThatAreNotUniform) {
  const size_t n = 50'000;
  expect_sorted_as_std_sort(std::vector<uint64_t>(n, 42));
  std::vector<uint64_t> few = uniform(n, 1);
  for (uint64_t& h : few) h = (h % 3) << 62;  // three values, each a whole bucket
  expect_sorted_as_std_sort(few);
  std::vector<uint64_t> ascending = uniform(n, 2);
  std::sort(ascending.begin(), ascending.end());
  expect_sorted_as_std_sort(ascending);
  expect_sorted_as_std_sort(std::vector<uint64_t>(ascending.rbegin(), ascending.rend()));
  std::vector<uint64_t> one_bucket = uniform(n, 3);
  for (uint64_t& h : one_bucket) h >>= 8;  // top byte zero: the first pass places nothing apart
  expect_sorted_as_std_sort(one_bucket);
  std::vector<uint64_t> low_bits_only = uniform(n, 4);
  for (uint64_t& h : low_bits_only) h &= 0xffff;  // seven passes of one bucket before the values differ
  expect_sorted_as_std_sort(low_bits_only);
  for (size_t small : {size_t{32}, size_t{40}, size_t{1000}}) {  // passes of few bits, down to shift 0
    expect_sorted_as_std_sort(std::vector<uint64_t>(small, 7));
    std::vector<uint64_t> two_values = uniform(small, small);
    for (uint64_t& h : two_values) h = h & 1 ? ~uint64_t{0} : 0;
    expect_sorted_as_std_sort(two_values);
  }
}

}  // namespace
}  // namespace bloomcrawl::seenfilter
