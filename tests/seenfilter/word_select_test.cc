// The broadword rank and select (word_select.h) against a bit-by-bit count and scan: on words of
// every density, single bits at every position, full and alternating words, for every rank.
#include "seenfilter/word_select.h"

#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace bloomcrawl::seenfilter {
namespace {

std::vector<uint32_t> set_positions(uint64_t x) {
  std::vector<uint32_t> out;
  for (uint32_t bit = 0; bit < 64; ++bit) {
    if ((x >> bit) & 1) out.push_back(bit);
  }
  return out;
}

void expect_matches_a_scan(uint64_t x) {
  const std::vector<uint32_t> positions = set_positions(x);
  ASSERT_EQ(count_bits(x), uint32_t(positions.size())) << std::hex << x;
  const uint64_t sums = byte_prefix_counts(x);
  for (uint32_t byte = 0; byte < 8; ++byte) {
    const uint64_t below = x & (byte == 7 ? ~uint64_t{0} : (uint64_t{1} << (8 * byte + 8)) - 1);
    EXPECT_EQ((sums >> (8 * byte)) & 0xff, uint64_t{set_positions(below).size()}) << std::hex << x << " byte " << byte;
  }
  for (uint32_t k = 0; k < positions.size(); ++k) {
    ASSERT_EQ(select_bit(x, k), positions[k]) << std::hex << x << " rank " << std::dec << k;
  }
}

TEST(WordSelect, EdgeWords) {
  for (uint64_t x : std::vector<uint64_t>{0, ~uint64_t{0}, uint64_t{1}, uint64_t{1} << 63, 0x5555555555555555ULL,
                                          0xaaaaaaaaaaaaaaaaULL, 0xff00ff00ff00ff00ULL, 0x00000000ffffffffULL,
                                          0xffffffff00000000ULL}) {
    expect_matches_a_scan(x);
  }
  for (uint32_t bit = 0; bit < 64; ++bit) {
    expect_matches_a_scan(uint64_t{1} << bit);
    expect_matches_a_scan(~(uint64_t{1} << bit));
  }
}

TEST(WordSelect, RandomWordsOfEveryDensity) {
  std::mt19937_64 rng(20261206);
  for (int density = 1; density < 8; ++density) {  // each bit set with probability density / 8
    for (int i = 0; i < 2000; ++i) {
      uint64_t x = ~uint64_t{0};
      uint64_t keep = 0;
      // Each step halves the probability, then adds 1/2 for a set bit of density (lowest first).
      for (int b = 0; b < 3; ++b) {
        const uint64_t r = rng();
        keep = ((density >> b) & 1) ? (keep | r) : (keep & r);
      }
      x &= keep;
      expect_matches_a_scan(x);
    }
  }
}

}  // namespace
}  // namespace bloomcrawl::seenfilter
