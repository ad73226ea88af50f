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

TEST(ClusterAddress, ParsesCredentialsAsRedisCliDoes) {
  EXPECT_EQ(parse_cluster_address("redis://crawler:pa%40ss@10.0.0.5:6379/news", true),
            (ClusterAddress{"10.0.0.5", 6379, "news", "crawler", "pa@ss"}));
  EXPECT_EQ(parse_cluster_address("redis://:p:w@h:1/n", true), (ClusterAddress{"h", 1, "n", "", "p:w"}));
  EXPECT_EQ(parse_cluster_address("redis://secret@h:1/n", true), (ClusterAddress{"h", 1, "n", "", "secret"}));
  EXPECT_EQ(parse_cluster_address("redis://u:a/b@c@[::1]:6379/n", true),
            (ClusterAddress{"::1", 6379, "n", "u", "a/b@c"}));
  EXPECT_EQ((ClusterAddress{"::1", 6379, "n", "u", "p"}).server_url(), "redis://[::1]:6379");
  EXPECT_EQ((ClusterAddress{"h", 1, "n", "u", "p"}).server_url(), "redis://h:1");
}

TEST(ClusterAddress, RefusesTlsWithTheReasonAndNeverEchoesAPassword) {
  auto problem = [](const std::string& text) -> std::string {
    try {
      parse_cluster_address(text, true);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_THAT(problem("rediss://h:1/n"), HasSubstr("hiredis (0.14) has no TLS"));
  EXPECT_THAT(problem("rediss://h:1/n"), HasSubstr("stunnel"));
  const std::string bad_port = problem("redis://u:topsecret@h:99999/n");
  EXPECT_THAT(bad_port, HasSubstr("1-65535"));
  EXPECT_THAT(bad_port, HasSubstr("redis://***@h:99999/n"));
  EXPECT_THAT(bad_port, ::testing::Not(HasSubstr("topsecret")));
  EXPECT_THAT(problem("redis://u:%4@h:1/n"), HasSubstr("broken %XX escape"));
  EXPECT_THAT(problem("redis://u:@h:1/n"), HasSubstr("password before '@' is empty"));
}

TEST(ClusterConfig, CredentialsStayOutOfTheConfig) {
  EXPECT_THAT(cluster_error_of(R"({"redis": "redis://u:p@h:1", "name": "n"})"), HasSubstr("no credentials here"));
  EXPECT_THAT(cluster_error_of(R"({"redis": "redis://h:1", "name": "n", "password_file": "f", "password_env": "E"})"),
              HasSubstr("not both"));
  const CrawlConfig c = parse_config(
      R"({"seeds": {"urls": ["https://example.com/"]}, "cluster": {"redis": "redis://h:1", "name": "n",
          "user": "crawler", "password_env": "BLOOMCRAWL_REDIS_PASSWORD"}})",
      "cfg.json");
  EXPECT_EQ(c.cluster.user, "crawler");
  EXPECT_EQ(c.cluster.password_env, "BLOOMCRAWL_REDIS_PASSWORD");
  CrawlConfig with_url_password = c;
  with_url_password.cluster.url_password = "topsecret";
  EXPECT_EQ(to_json(with_url_password).dump().find("topsecret"), std::string::npos);
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
