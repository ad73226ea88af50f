// HostPartition: one owner per host, an even spread, and growing N moves only the hosts the new
// node wins (about 1/N of them).
#include "crawler/cluster/host_partition.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace bloomcrawl {
namespace {

std::vector<std::string> hosts(size_t count) {
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) out.push_back("host" + std::to_string(i) + ".example.com");
  return out;
}

TEST(HostPartition, EveryHostHasOneStableOwner) {
  const HostPartition three(3);
  const HostPartition again(3);
  for (const std::string& host : hosts(1000)) {
    const uint32_t owner = three.owner(host);
    EXPECT_LT(owner, 3u);
    EXPECT_EQ(again.owner(host), owner) << host;
  }
  EXPECT_EQ(HostPartition(1).owner("any.example"), 0u);
  EXPECT_THROW(HostPartition(0), std::invalid_argument);
}

// Nodes of one cluster may run different builds, so the owner is a function of the host's bytes
// alone. tests/cluster/netns_cluster_test.sh relies on these owners too: its two nodes split
// 10.231.23.10-15 three and three.
TEST(HostPartition, OwnersAreTheSameInEveryBuild) {
  const HostPartition two(2);
  const std::vector<std::pair<std::string, uint32_t>> pinned = {
      {"10.231.23.10", 0}, {"10.231.23.11", 1}, {"10.231.23.12", 1},
      {"10.231.23.13", 0}, {"10.231.23.14", 1}, {"10.231.23.15", 0},
  };
  for (const auto& [host, owner] : pinned) EXPECT_EQ(two.owner(host), owner) << host;
}

TEST(HostPartition, HostsSpreadEvenly) {
  constexpr size_t kHosts = 30000;
  for (uint32_t n : {2u, 3u, 7u}) {
    const HostPartition partition(n);
    std::vector<size_t> owned(n);
    for (const std::string& host : hosts(kHosts)) ++owned[partition.owner(host)];
    for (uint32_t node = 0; node < n; ++node) {
      EXPECT_NEAR(double(owned[node]), double(kHosts) / n, 0.05 * kHosts / n) << "node " << node << " of " << n;
    }
  }
}

TEST(HostPartition, GrowingNMovesOnlyTheNewNodesShare) {
  constexpr size_t kHosts = 30000;
  for (uint32_t n = 1; n <= 8; ++n) {
    const HostPartition before(n);
    const HostPartition after(n + 1);
    size_t moved = 0;
    for (const std::string& host : hosts(kHosts)) {
      const uint32_t old_owner = before.owner(host);
      const uint32_t new_owner = after.owner(host);
      if (new_owner == old_owner) continue;
      EXPECT_EQ(new_owner, n) << host << ": a moved host goes to the new node, never between old ones";
      ++moved;
    }
    EXPECT_NEAR(double(moved) / kHosts, 1.0 / (n + 1), 0.1 / (n + 1)) << n << " -> " << n + 1 << " nodes";
  }
}

}  // namespace
}  // namespace bloomcrawl
