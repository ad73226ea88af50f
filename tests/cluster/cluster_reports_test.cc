// ClusterLink::gather_reports against a real redis-server (docs/cluster.md, "The cluster report"):
// it waits for the report of a node still alive, not for one whose liveness is gone, and counts no
// report from an earlier run. The liveness and the reports are read in one script: a node that
// stores its report and then drops its liveness between two polls is found, never taken for dead
// (the cause of a CI failure where a merged report lacked a node that had reported).
#include <chrono>
#include <future>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "crawler/cluster/cluster_link.h"
#include "crawler/cluster/cluster_registry.h"
#include "crawler/cluster/redis_client.h"
#include "tests/support/redis_server.h"

namespace bloomcrawl {
namespace {

class ClusterReportsTest : public ::testing::Test {
 protected:
  void SetUp() override { server_.start(); }
  ClusterSettings node(uint32_t index) const { return ClusterSettings{{"127.0.0.1", server_.port()}, "ops", 2, index}; }
  static nlohmann::json report(uint64_t pages) { return {{"fetches", {{"pages_fetched", pages}}}}; }
  static void publish(ClusterLink& link, const char* state, std::chrono::milliseconds alive_for) {
    NodeCounters c;
    c.state = state;
    link.publish(c, alive_for);
  }

  static int64_t redis_ms(RedisClient& redis) {
    const RedisValue t = redis.command({"TIME"});
    return std::stoll(t.array()[0].text()) * 1000 + std::stoll(t.array()[1].text()) / 1000;
  }

  testing::RedisServer server_;
};

TEST_F(ClusterReportsTest, AReportStoredWhileWaitingIsFoundAndTheLivenessDroppedAfterItEndsTheWait) {
  ClusterLink zero(node(0));
  ClusterLink one(node(1));
  publish(one, "stopping", std::chrono::minutes(1));
  zero.store_report(report(3));
  publish(zero, "stopped", std::chrono::milliseconds(0));
  // Node 1 is alive without a report: the gather waits for it (up to a minute, far past this test).
  std::future<nlohmann::json> merged =
      std::async(std::launch::async, [&] { return zero.gather_reports(std::chrono::minutes(1)); });
  EXPECT_EQ(merged.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout) << "it did not wait";
  one.store_report(report(4));
  publish(one, "stopped", std::chrono::milliseconds(0));
  const nlohmann::json m = merged.get();
  EXPECT_TRUE(m["missing"].empty()) << m["missing"].dump();
  ASSERT_EQ(m["per_node"].size(), 2u);
  EXPECT_EQ(m["totals"]["fetches"]["pages_fetched"], 7);
}

TEST_F(ClusterReportsTest, ANodeWithoutLivenessOrReportIsMissingAndNotWaitedFor) {
  ClusterLink zero(node(0));
  ClusterLink one(node(1));
  publish(one, "running", std::chrono::minutes(1));
  publish(one, "stopped", std::chrono::milliseconds(0));  // gone without a report: killed, as a crash leaves it
  zero.store_report(report(3));
  const auto started = std::chrono::steady_clock::now();
  const nlohmann::json m = zero.gather_reports(std::chrono::minutes(1));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30)) << "it waited for a dead node";
  EXPECT_EQ(m["missing"], nlohmann::json::array({1}));
  EXPECT_EQ(m["per_node"].size(), 1u);
  EXPECT_EQ(m["totals"]["fetches"]["pages_fetched"], 3);
}

TEST_F(ClusterReportsTest, AReportFromAnEarlierRunIsNotCounted) {
  {
    ClusterLink earlier(node(1));
    earlier.store_report(report(100));
  }
  // Node 0 starts in a later millisecond of Redis's clock than node 1's report, from an earlier run.
  RedisClient redis(RedisEndpoint{"127.0.0.1", server_.port()});
  const int64_t stored_ms = std::stoll(redis.command({"HGET", cluster_key("ops", "reports"), "1:ms"}).text());
  while (redis_ms(redis) <= stored_ms) {
  }
  ClusterLink zero(node(0));
  zero.store_report(report(3));
  const nlohmann::json m = zero.gather_reports(std::chrono::minutes(1));
  EXPECT_EQ(m["missing"], nlohmann::json::array({1}));
  EXPECT_EQ(m["totals"]["fetches"]["pages_fetched"], 3);
}

}  // namespace
}  // namespace bloomcrawl
