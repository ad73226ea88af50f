// DuplicateCounts: exact by host and kind while the hosts fit, bounded beyond with the rest summed,
// and the same totals when many workers count at once.
#include "crawler/pipeline/duplicate_counts.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/run_concurrently.h"

namespace bloomcrawl {
namespace {

using Counts = std::vector<std::pair<std::string, uint64_t>>;
using testing::run_concurrently;

uint64_t sum(const Counts& counts) {
  uint64_t n = 0;
  for (const auto& [key, count] : counts) n += count;
  return n;
}

TEST(DuplicateCounts, ExactWhileTheHostsFit) {
  DuplicateCounts d(8);
  for (const char* host : {"b", "a", "c", "a", "b", "a"}) d.add(host, "a");
  d.add("a", "iframe");
  EXPECT_EQ(d.top(2), (Counts{{"a", 4}, {"b", 2}}));
  EXPECT_EQ(d.others(d.top(2)), 1u);  // "c"
  EXPECT_EQ(d.by_kind(), (std::map<std::string, uint64_t>{{"a", 6}, {"iframe", 1}}));
}

TEST(DuplicateCounts, SavedCountsAddUp) {
  DuplicateCounts d(8);
  d.add("a", "a");
  d.add_host("a", 5);
  d.add_kind("a", 5);
  d.add_others(7);
  EXPECT_EQ(d.top(10), (Counts{{"a", 6}}));
  EXPECT_EQ(d.others(d.top(10)), 7u);
  EXPECT_EQ(d.by_kind().at("a"), 6u);
}

TEST(DuplicateCounts, ManyHostsFromManyWorkersStayBoundedAndAddUp) {
  constexpr size_t kPerShard = 4;
  constexpr int kWorkers = 4;
  constexpr int kHostsPerWorker = 5000;
  DuplicateCounts d(kPerShard);
  run_concurrently(kWorkers, [&](int worker) {
    for (int i = 0; i < kHostsPerWorker; ++i) {
      d.add(std::to_string(worker).append("-").append(std::to_string(i)), "a");
      d.add("heavy", "a");
    }
  });
  const Counts top = d.top(50);
  EXPECT_LE(top.size(), DuplicateCounts::kShards * kPerShard);
  ASSERT_FALSE(top.empty());
  // Space-Saving may overstate a count (by what it inherited), never lose a heavy key.
  EXPECT_EQ(top[0].first, "heavy");
  EXPECT_GE(top[0].second, uint64_t(kWorkers) * kHostsPerWorker);
  EXPECT_EQ(sum(top) + d.others(top), 2u * kWorkers * kHostsPerWorker);
  EXPECT_EQ(d.by_kind().at("a"), 2u * kWorkers * kHostsPerWorker);
}

}  // namespace
}  // namespace bloomcrawl
