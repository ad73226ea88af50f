// join_cluster against a real redis-server: the first node records the crawl, agreeing nodes join,
// a node with another N or a config keying URLs differently is refused naming the difference, and
// of nodes starting at once with different N exactly one wins.
#include "crawler/cluster/cluster_registry.h"

#include <atomic>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/key_hash.h"
#include "crawler/cluster/redis_client.h"
#include "tests/support/redis_server.h"
#include "tests/support/run_concurrently.h"

namespace bloomcrawl {
namespace {

using ::testing::HasSubstr;

class ClusterRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override { server_.start(); }
  RedisClient client() { return RedisClient(RedisEndpoint{"127.0.0.1", server_.port()}); }
  static CrawlConfig config(int nodes) {
    CrawlConfig c;
    c.cluster = ClusterConfig{"redis://127.0.0.1:1", "crawl", nodes, 0};
    return c;
  }
  std::string refusal(const CrawlConfig& c) {
    RedisClient redis = client();
    try {
      join_cluster(redis, cluster_identity(c));
    } catch (const ClusterMismatch& e) {
      return e.what();
    }
    return "(joined)";
  }

  testing::RedisServer server_;
};

TEST_F(ClusterRegistryTest, TheFirstNodeRecordsTheCrawlAndAgreeingNodesJoin) {
  EXPECT_EQ(refusal(config(3)), "(joined)");
  CrawlConfig other_node = config(3);
  other_node.cluster.node = 2;
  other_node.politeness.delay_ms = 5;  // not key-affecting
  EXPECT_EQ(refusal(other_node), "(joined)");
  RedisClient redis = client();
  const nlohmann::json record = nlohmann::json::parse(
      redis.call({"GET", cluster_key("crawl", "meta")}, [](const RedisValue& v) { return v.text(); }));
  EXPECT_EQ(record["nodes"], 3);
  EXPECT_EQ(record["name"], "crawl");
  EXPECT_EQ(record["key_hash"], canonical_key_hash(config(3)));
}

TEST_F(ClusterRegistryTest, AnotherNIsRefused) {
  ASSERT_EQ(refusal(config(3)), "(joined)");
  const std::string error = refusal(config(4));
  EXPECT_THAT(error, HasSubstr("cannot join cluster crawl at " + server_.url()));
  EXPECT_THAT(error, HasSubstr("nodes: 3 in the cluster, 4 on this node"));
}

TEST_F(ClusterRegistryTest, AConfigKeyingUrlsDifferentlyIsRefusedNamingTheFields) {
  ASSERT_EQ(refusal(config(3)), "(joined)");
  CrawlConfig changed = config(3);
  changed.canonicalization.sort_query = true;
  changed.seen_filter.target_fpr = 1e-4;
  const std::string error = refusal(changed);
  EXPECT_THAT(error, HasSubstr("/canonicalization/sort_query: false in the cluster, true on this node"));
  EXPECT_THAT(error, HasSubstr("/seen_filter/target_fpr: "));
  EXPECT_THAT(error, ::testing::Not(HasSubstr("nodes:")));
}

TEST_F(ClusterRegistryTest, CrawlsOfOtherNamesAreIndependent) {
  ASSERT_EQ(refusal(config(3)), "(joined)");
  CrawlConfig other = config(5);
  other.cluster.name = "other";
  EXPECT_EQ(refusal(other), "(joined)");
}

TEST_F(ClusterRegistryTest, OfNodesStartingAtOnceWithDifferentNExactlyOneRecords) {
  std::atomic<int> joined{0};
  testing::run_concurrently(4, [&](int t) {
    if (refusal(config(2 + t)) == "(joined)") ++joined;
  });
  EXPECT_EQ(joined.load(), 1);
}

}  // namespace
}  // namespace bloomcrawl
