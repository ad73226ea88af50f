// Helpers shared by the static filters' tests (fuse_filter_test.cc, sorted_filter_test.cc).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "base/checksum.h"
#include "base/coding.h"

namespace bloomcrawl::seenfilter::testing {

inline std::vector<uint64_t> random_hashes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> out(n);
  for (uint64_t& h : out) h = rng();
  return out;
}

template <typename Filter>
void expect_all_found(const Filter& filter, const std::vector<uint64_t>& hashes) {
  size_t missing = 0;
  for (uint64_t h : hashes) missing += filter.contains(h) ? 0 : 1;
  EXPECT_EQ(missing, 0u);
}

// |measured - p·probes| within 4.5 standard deviations of a binomial(probes, p).
inline void expect_fpr_near(uint64_t false_positives, uint64_t probes, double p) {
  const double expected = p * static_cast<double>(probes);
  const double sd = std::sqrt(expected * (1 - p));
  EXPECT_NEAR(static_cast<double>(false_positives), expected, 4.5 * sd + 1) << "p " << p << " probes " << probes;
}

// Writes `value` (width bytes, little-endian) at `at`.
inline void put_le_at(std::string& bytes, size_t at, uint64_t value, int width) {
  std::string le;
  put_le(le, value, width);
  bytes.replace(at, le.size(), le);
}

// Rewrites a file's trailing checksum64 over the bytes before it (a damage the checksum misses).
inline void reseal(std::string& bytes) {
  put_le_at(bytes, bytes.size() - 8, checksum64(bytes.data(), bytes.size() - 8), 8);
}

}  // namespace bloomcrawl::seenfilter::testing
