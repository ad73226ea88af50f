// HeavyHitters: exact counts while the keys fit, bounded memory and the heavy keys kept beyond.
#include "crawler/pipeline/heavy_hitters.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace bloomcrawl {
namespace {

using Counts = std::vector<std::pair<std::string, uint64_t>>;

TEST(HeavyHitters, CountsAreExactWhileTheKeysFit) {
  HeavyHitters h(4);
  for (const char* key : {"b", "a", "c", "a", "b", "a"}) h.add(key);
  h.add("d", 2);
  EXPECT_EQ(h.top(10), (Counts{{"a", 3}, {"b", 2}, {"d", 2}, {"c", 1}}));  // ties by key
  EXPECT_EQ(h.top(2), (Counts{{"a", 3}, {"b", 2}}));
}

TEST(HeavyHitters, ManyDistinctKeysStayBoundedAndTheHeavyOnesAreKept) {
  constexpr size_t kCapacity = 16;
  HeavyHitters h(kCapacity);
  uint64_t total = 0;
  for (int i = 0; i < 10000; ++i) {
    h.add("light" + std::to_string(i));
    ++total;
    if (i % 10 == 0) {
      for (const char* heavy : {"x", "y", "z"}) h.add(heavy);
      total += 3;
    }
  }
  EXPECT_EQ(h.size(), kCapacity);
  const Counts top = h.top(3);
  ASSERT_EQ(top.size(), 3u);
  for (const auto& [key, count] : top) {
    EXPECT_TRUE(key == "x" || key == "y" || key == "z") << key;
    // Never understated; overstated by at most total / capacity.
    EXPECT_GE(count, 1000u) << key;
    EXPECT_LE(count, 1000u + total / kCapacity) << key;
  }
}

}  // namespace
}  // namespace bloomcrawl
