// The sorted filter's bucket search (zero_scan.h): both implementations, and the one chosen for
// this CPU, against a bit-by-bit scan, from every start in arrays of every density, for every
// count of zeros the array holds after the start, the zero within the words searched at once or
// past them.
#include "seenfilter/zero_scan.h"

#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace bloomcrawl::seenfilter {
namespace {

uint64_t pass_zeros_by_bits(const std::vector<uint64_t>& words, uint64_t at, uint64_t ends) {
  for (; ends > 0; ++at) {
    if (((words[at / 64] >> (at % 64)) & 1) == 0) --ends;
  }
  return at;
}

uint64_t zeros_from(const std::vector<uint64_t>& words, uint64_t at) {
  uint64_t zeros = 0;
  for (; at < words.size() * 64; ++at) zeros += ((words[at / 64] >> (at % 64)) & 1) == 0;
  return zeros;
}

// Words whose bits are set with chance `density` (the unary part of a sorted filter is about 1/2).
std::vector<uint64_t> random_words(size_t n, double density, std::mt19937_64& rng) {
  std::bernoulli_distribution one(density);
  std::vector<uint64_t> words(n, 0);
  for (uint64_t& w : words) {
    for (uint32_t bit = 0; bit < 64; ++bit) w |= uint64_t{one(rng)} << bit;
  }
  return words;
}

// `words` with the padding the contract asks for (kPassZerosWords words readable from any start):
// words without zeros, so the answers are those of `words` alone.
std::vector<uint64_t> padded(std::vector<uint64_t> words) {
  words.insert(words.end(), kPassZerosWords - 1, ~uint64_t{0});
  return words;
}

// `words` must be padded().
void expect_matches_the_bit_scan(const std::vector<uint64_t>& words, uint64_t at) {
  const uint64_t available = zeros_from(words, at);
  const bool bmi2 = zero_scan_bmi2_built() && __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi2");
  for (uint64_t ends = 0; ends <= available; ++ends) {
    const uint64_t expected = pass_zeros_by_bits(words, at, ends);
    ASSERT_EQ(pass_zeros_portable(words.data(), at, ends), expected) << "at " << at << " ends " << ends;
    ASSERT_EQ(pass_zeros(words.data(), at, ends), expected) << "at " << at << " ends " << ends;
    if (bmi2) {
      ASSERT_EQ(pass_zeros_bmi2(words.data(), at, ends), expected) << "at " << at << " ends " << ends;
    }
  }
}

TEST(ZeroScan, MatchesABitByBitScanAtEveryDensityAndStart) {
  std::mt19937_64 rng(7);
  for (double density : {0.0, 0.1, 0.5, 0.9, 0.99}) {
    const std::vector<uint64_t> words = padded(random_words(6, density, rng));
    for (uint64_t at = 0; at < uint64_t{6} * 64; at += 7) expect_matches_the_bit_scan(words, at);
  }
}

// Also past the words the fast search counts at once (kPassZerosWords), where it goes on word by word.
TEST(ZeroScan, WordsWithNoZerosAreSkipped) {
  const uint64_t ones = ~uint64_t{0};
  const std::vector<uint64_t> words = padded({ones, ones, 0x8000000000000000ULL, ones, ones, ones, ones, ones, 0});
  for (uint64_t at : {uint64_t{0}, uint64_t{1}, uint64_t{63}, uint64_t{64}, uint64_t{130}, uint64_t{200}}) {
    expect_matches_the_bit_scan(words, at);
  }
}

TEST(ZeroScan, TheFastSearchIsChosenOnlyWhereTheCpuHasIt) {
  if (!cpu_has_fast_bmi2()) {
    EXPECT_EQ(pass_zeros_for_this_cpu(), &pass_zeros_portable);
    return;
  }
  EXPECT_TRUE(__builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi2"));
  EXPECT_EQ(pass_zeros_for_this_cpu(), zero_scan_bmi2_built() ? &pass_zeros_bmi2 : &pass_zeros_portable);
}

}  // namespace
}  // namespace bloomcrawl::seenfilter
