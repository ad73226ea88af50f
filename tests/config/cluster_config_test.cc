// The cluster section and its text rules: redis://HOST:PORT[/NAME] and crawl names, node < nodes,
// and redis and name only together.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/cluster_address.h"
#include "config/config.h"
#include "config/key_hash.h"

namespace bloomcrawl {
namespace {

using ::testing::HasSubstr;

std::string cluster_error_of(const std::string& cluster_json) {
  try {
    parse_config(R"({"seeds": {"urls": ["https://example.com/"]}, "cluster": )" + cluster_json + "}", "cfg.json");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no ConfigError)";
}

TEST(ClusterAddress, ParsesHostPortAndName) {
  EXPECT_EQ(parse_cluster_address("redis://127.0.0.1:6379/crawl-1", true),
            (ClusterAddress{"127.0.0.1", 6379, "crawl-1"}));
  EXPECT_EQ(parse_cluster_address("redis://redis.internal:7000", false), (ClusterAddress{"redis.internal", 7000, ""}));
  EXPECT_EQ(parse_cluster_address("redis://[::1]:6379/x", true), (ClusterAddress{"::1", 6379, "x"}));
}

TEST(ClusterAddress, RefusesWhatIsNotTheForm) {
  auto problem = [](const std::string& text, bool name) -> std::string {
    try {
      parse_cluster_address(text, name);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_THAT(problem("http://h:1/n", true), HasSubstr("must start with redis://"));
  EXPECT_THAT(problem("redis://h/n", true), HasSubstr("the port is missing"));
  EXPECT_THAT(problem("redis://h:0/n", true), HasSubstr("1-65535"));
  EXPECT_THAT(problem("redis://h:70000/n", true), HasSubstr("1-65535"));
  EXPECT_THAT(problem("redis://h:1", true), HasSubstr("name is missing"));
  EXPECT_THAT(problem("redis://h:1/", true), HasSubstr("1-64 characters"));
  EXPECT_THAT(problem("redis://h:1/a b", true), HasSubstr("only letters, digits"));
  EXPECT_THAT(problem("redis://h:1/n", false), HasSubstr("no path may follow the port"));
  EXPECT_THAT(problem("redis://h_x:1", false), HasSubstr("bad host"));
}

TEST(ClusterConfig, DefaultIsOffAndValuesLoad) {
  EXPECT_TRUE(CrawlConfig{}.cluster.redis.empty());
  const CrawlConfig c = parse_config(
      R"({"seeds": {"urls": ["https://example.com/"]},
          "cluster": {"redis": "redis://127.0.0.1:6379", "name": "news", "nodes": 3, "node": 2}})",
      "cfg.json");
  EXPECT_EQ(c.cluster, (ClusterConfig{"redis://127.0.0.1:6379", "news", 3, 2}));
}

TEST(ClusterConfig, MistakesNameTheField) {
  EXPECT_EQ(cluster_error_of(R"({"redis": "redis://h:1", "name": "n", "nodes": 3, "node": 3})"),
            "cfg.json: /cluster/node: must be less than /cluster/nodes (3), got 3");
  EXPECT_EQ(cluster_error_of(R"({"redis": "redis://h:1"})"),
            "cfg.json: /cluster/name: cluster mode needs both /cluster/redis and /cluster/name");
  EXPECT_EQ(cluster_error_of(R"({"name": "n"})"),
            "cfg.json: /cluster/redis: cluster mode needs both /cluster/redis and /cluster/name");
  EXPECT_THAT(cluster_error_of(R"({"redis": "redis://h:1/n", "name": "n"})"), HasSubstr("/cluster/redis: "));
  EXPECT_THAT(cluster_error_of(R"({"redis": "redis://h:1", "name": "a/b"})"), HasSubstr("/cluster/name: "));
  EXPECT_THAT(cluster_error_of(R"({"nodes": 0})"), HasSubstr("/cluster/nodes: "));
}

TEST(ClusterConfig, IsNotKeyAffecting) {
  CrawlConfig a;
  CrawlConfig b;
  b.cluster = ClusterConfig{"redis://h:1", "n", 4, 1};
  EXPECT_EQ(canonical_key_hash(a), canonical_key_hash(b));
}

}  // namespace
}  // namespace bloomcrawl
