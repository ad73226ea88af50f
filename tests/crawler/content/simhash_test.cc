// SimHash (crawler/content/simhash.h): the same words the same fingerprint, a few words changed in
// a long text a few bits, unrelated texts about half the bits.
#include "crawler/content/simhash.h"

#include <string>

#include <gtest/gtest.h>

namespace bloomcrawl {
namespace {

std::string article(int seed, int words) {
  std::string text;
  for (int i = 0; i < words; ++i) text += "word" + std::to_string((i * 7919 + seed * 104729) % 5000) + " ";
  return text;
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
