// GroupedHosts: each host reported once while the table remembers it, from many threads at once
// (also run under TSan), in a table whose size does not grow with the hosts seen.
#include "crawler/pipeline/grouped_hosts.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "tests/support/run_concurrently.h"

namespace bloomcrawl {
namespace {

std::string host(int i) { return "host" + std::to_string(i) + ".test"; }

TEST(GroupedHosts, EachHostIsFirstOnceFromManyThreads) {
  constexpr int kThreads = 8;
  constexpr int kHosts = 100;
  GroupedHosts grouped;
  std::atomic<int> firsts{0};
  testing::run_concurrently(kThreads, [&](int) {
    for (int i = 0; i < kHosts; ++i) firsts += grouped.first_time(host(i)) ? 1 : 0;
  });
  EXPECT_EQ(firsts.load(), kHosts);
  for (int i = 0; i < kHosts; ++i) EXPECT_FALSE(grouped.first_time(host(i))) << i;
}

TEST(GroupedHosts, ManyMoreHostsThanSlotsAreForgottenNotStored) {
  GroupedHosts grouped;
  ASSERT_TRUE(grouped.first_time("early.test"));
  // Eight times as many hosts as slots: "early.test"'s slot is taken over by another host.
  for (size_t i = 0; i < 8 * GroupedHosts::kSlots; ++i) grouped.first_time(host(int(i)));
  EXPECT_TRUE(grouped.first_time("early.test"));
  EXPECT_FALSE(grouped.first_time("early.test"));
}

}  // namespace
}  // namespace bloomcrawl
