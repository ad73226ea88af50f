// A node's inbox, end to end with a password-protected redis-server: what other nodes send is
// checked against this node's scope like any link, and a malformed entry is moved to the node's
// dead-letter stream (logged, counted) instead of failing the node at every resume
// (docs/cluster.md, "What a node takes from its inbox").
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/cluster/cluster_link.h"
#include "crawler/cluster/cluster_registry.h"
#include "crawler/cluster/redis_client.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/page_records.h"
#include "tests/support/redis_server.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_web.h"
#include "tests/support/test_web_config.h"

namespace bloomcrawl {
namespace {

constexpr const char* kInboxPassword = "inbox-pass";

TEST(ClusterInboxCrawl, OutOfScopeUrlsAreDroppedAndMalformedEntriesSetAside) {
  testing::RedisServer redis({.password = kInboxPassword});
  redis.start();
  testing::TempDir dir;
  testweb::TestWebOptions o;
  o.trap = false;
  o.hosts = {"127.0.0.2"};
  o.pages_per_host = 12;
  testweb::TestWeb web(o);
  web.start();

  CrawlConfig c = testing::test_web_config(web, dir.path() / "out");
  c.cluster = ClusterConfig{redis.url(), "inbox", 1, 0};
  c.cluster.url_password = kInboxPassword;
  RedisClient client(RedisEndpoint{"127.0.0.1", redis.port(), "", kInboxPassword});
  join_cluster(client, cluster_identity(c));
  const std::string inbox = cluster_key("inbox", "inbox:0");
  const std::string outside = "http://127.0.0.99:" + std::to_string(web.port()) + "/outside";
  const RoutedBatch out_of_scope{
      1, 0, web.seed_url(), {{outside, "127.0.0.99:" + std::to_string(web.port()), 0, false}}};
  client.command({"XADD", inbox, "*", "from", "0", "batch", encode_batch(out_of_scope)});
  client.command({"XADD", inbox, "*", "from", "0", "batch", "{not json"});
  client.command({"XADD", inbox, "*", "from", "0", "other", "no batch field"});

  Crawler crawler(settings_from_config(c));
  const nlohmann::json report = crawler.run();
  web.stop();

  EXPECT_EQ(report["crawl"]["stopped_by"], "done") << report.dump(2);
  EXPECT_EQ(report["cluster"]["dead_letters"], 2);
  EXPECT_EQ(client.command({"XLEN", cluster_key("inbox", "dead-letter:0")}).integer(), 2);
  EXPECT_EQ(client.command({"XLEN", inbox}).integer(), 0) << "every entry admitted or set aside";
  EXPECT_GE(report["links"]["dropped_by_reason"].value("host_not_allowed", 0), 1) << report["links"].dump(2);

  std::set<std::string> fetched;
  for (const auto& [url, records] : testing::read_page_records(dir.path() / "out")) {
    EXPECT_NE(url, outside) << "an out-of-scope inbox URL was recorded";
    if (records[0]["status"].get<long>() != 0) fetched.insert(url);  // 0: not fetched (robots.txt, ...)
  }
  const std::vector<std::string> truth = web.ground_truth(web.site_depth());
  EXPECT_EQ(fetched, std::set<std::string>(truth.begin(), truth.end()));
}

}  // namespace
}  // namespace bloomcrawl
