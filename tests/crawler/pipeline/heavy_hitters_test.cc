// HeavyHitters: exact counts while the keys fit, bounded memory and the heavy keys kept beyond.
#include "crawler/pipeline/heavy_hitters.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
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

// Space-Saving by its definition, with a linear search for a smallest counter: whichever of the
// smallest the heap replaces, the counts it holds must be the ones the definition holds.
TEST(HeavyHitters, KeepsTheCountsTheDefinitionKeeps) {
  constexpr size_t kCapacity = 8;
  HeavyHitters h(kCapacity);
  std::map<std::string, uint64_t> reference;
  std::mt19937 random(7);
  std::geometric_distribution<int> skewed(0.15);
  const auto counts_of = [](const auto& entries) {
    std::vector<uint64_t> counts;
    for (const auto& [key, count] : entries) counts.push_back(count);
    std::sort(counts.begin(), counts.end());
    return counts;
  };
  for (int i = 0; i < 5000; ++i) {
    std::string key = "k";  // appended: GCC 12 -O3 misreports -Wrestrict on "literal" + std::string
    key += std::to_string(skewed(random));
    const uint64_t n = 1 + random() % 3;
    h.add(key, n);
    const Counts held = h.top(kCapacity);
    // A key the heap holds is counted as the definition would count it from its arrival.
    if (auto it = reference.find(key); it != reference.end()) {
      it->second += n;
    } else if (reference.size() < kCapacity) {
      reference.emplace(key, n);
    } else {
      // Replace the smallest counter the heap replaced (one of the smallest, by its count).
      const auto smallest = std::min_element(reference.begin(), reference.end(),
                                             [](const auto& a, const auto& b) { return a.second < b.second; });
      auto gone = reference.begin();
      for (auto r = reference.begin(); r != reference.end(); ++r) {
        const bool kept = std::any_of(held.begin(), held.end(), [&](const auto& e) { return e.first == r->first; });
        if (!kept) gone = r;
      }
      ASSERT_EQ(gone->second, smallest->second) << "step " << i << ": replaced a counter that was not the smallest";
      const uint64_t inherited = gone->second;
      reference.erase(gone);
      reference.emplace(key, inherited + n);
    }
    ASSERT_EQ(held.size(), reference.size()) << "step " << i;
    ASSERT_EQ(counts_of(held), counts_of(reference)) << "step " << i;
  }
}

}  // namespace
}  // namespace bloomcrawl
