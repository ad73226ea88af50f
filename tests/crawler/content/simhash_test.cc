// SimHash (crawler/content/simhash.h): the same words the same fingerprint, a few words changed in
// a long text a few bits, unrelated texts about half the bits.
#include "crawler/content/simhash.h"

#include <array>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/checksum.h"

namespace bloomcrawl {
namespace {

std::string article(int seed, int words) {
  std::string text;
  for (int i = 0; i < words; ++i) text += "word" + std::to_string((i * 7919 + seed * 104729) % 5000) + " ";
  return text;
}

// The definition, one weight per bit, beside which simhash64's byte-lane counting must agree.
uint64_t simhash_by_definition(const std::vector<std::string>& words) {
  std::array<int64_t, 64> weights{};
  for (const std::string& w : words) {
    const uint64_t h = checksum64(w.data(), w.size());
    for (int bit = 0; bit < 64; ++bit) weights[bit] += (h >> bit & 1) != 0 ? 1 : -1;
  }
  uint64_t out = 0;
  for (int bit = 0; bit < 64; ++bit) {
    if (weights[bit] > 0) out |= uint64_t{1} << bit;
  }
  return out;
}

TEST(SimHash, AgreesWithTheDefinitionPerBitAcrossTheLaneDrains) {
  std::mt19937_64 rng(7);
  // Word counts around the lanes' drain every 255 words, and ties (an even count can leave a bit's
  // weight at 0, which is clear).
  for (const size_t count : {1, 2, 3, 254, 255, 256, 510, 511, 1000, 4096}) {
    std::vector<std::string> words;
    std::string text;
    for (size_t i = 0; i < count; ++i) {
      words.push_back("w" + std::to_string(rng() % (count / 2 + 1)));  // repeats: weights by count
      text += words.back() + (i % 3 == 0 ? ", " : " ");
    }
    EXPECT_EQ(simhash64(text), simhash_by_definition(words)) << count << " words";
  }
}

TEST(SimHash, SameWordsSameFingerprintWhateverCaseAndPunctuation) {
  EXPECT_EQ(simhash64("Hello, World! 42"), simhash64("hello world 42"));
  EXPECT_EQ(simhash64(""), 0u);
  EXPECT_EQ(simhash64(" ,.;! "), 0u);
  EXPECT_NE(simhash64("hello world"), simhash64("goodbye world"));
}

TEST(SimHash, APerRenderTimestampInALongPageIsANearDuplicate) {
  const std::string body = article(1, 600);
  const uint64_t a = simhash64(body + " rendered 2026-12-05 13:41:09 ad 1234");
  const uint64_t b = simhash64(body + " rendered 2026-12-05 13:41:10 ad 9876");
  EXPECT_LE(hamming_distance(a, b), kNearDuplicateBits);
}

TEST(SimHash, DifferentArticlesAreFarApart) {
  int near = 0;
  for (int seed = 2; seed < 52; ++seed) {
    if (hamming_distance(simhash64(article(1, 300)), simhash64(article(seed, 300))) <= kNearDuplicateBits) ++near;
  }
  EXPECT_EQ(near, 0);
}

}  // namespace
}  // namespace bloomcrawl
