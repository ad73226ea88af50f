// Revisits in cluster mode (docs/recrawl.md, "Revisits in the crawl"; docs/cluster.md) with a real
// redis-server: two nodes (two Crawlers in this process) crawl the test web with recrawl on, then
// both resume with --revisit-all. Each node revisits the pages of the hosts it owns, every page is
// revisited once, and none twice.

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/cluster/cluster_registry.h"
#include "crawler/cluster/host_partition.h"
#include "crawler/cluster/redis_client.h"
#include "crawler/persist/crawl_checkpoint.h"
#include "crawler/pipeline/crawler.h"
#include "crawler/url/url.h"
#include "tests/support/page_records.h"
#include "tests/support/partition_port.h"
#include "tests/support/redis_server.h"
#include "tests/support/run_concurrently.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_web.h"
#include "tests/support/test_web_config.h"

// TSan: Debian's uninstrumented cpp-httplib and librocksdb are suppressed by tests/tsan.supp.

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

constexpr int kRevisitNodes = 2;

TEST(ClusterRevisitTest, EachNodeRevisitsTheHostsItOwnsAndNoPageTwice) {
  testing::RedisServer redis;
  redis.start();
  const testing::TempDir dir;
  testweb::TestWebOptions o;
  o.trap = false;
  o.hosts = {"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"};
  o.pages_per_host = 15;
  o.port = testing::port_sharing_hosts_evenly(o.hosts, kRevisitNodes);
  testweb::TestWeb web(o);
  web.start();

  const auto settings_of = [&](int node) {
    CrawlConfig c = testing::test_web_config(web, dir.path() / ("out" + std::to_string(node)));
    c.checkpoint.directory = (dir.path() / ("ckpt" + std::to_string(node))).string();
    c.recrawl.enabled = true;
    c.cluster = ClusterConfig{redis.url(), "revisit", kRevisitNodes, node};
    RedisClient client(RedisEndpoint{"127.0.0.1", redis.port()});
    join_cluster(client, cluster_identity(c));
    return testing::checkpointed_settings(c);
  };
  std::vector<nlohmann::json> first(kRevisitNodes);
  testing::run_concurrently(kRevisitNodes, [&](int node) { first[size_t(node)] = Crawler(settings_of(node)).run(); });
  for (const nlohmann::json& report : first) ASSERT_EQ(report["crawl"]["stopped_by"], "done") << report.dump(2);
  const std::vector<std::string> truth = web.ground_truth(web.site_depth());
  ASSERT_EQ(web.summary().distinct_urls, truth.size());

  web.clear_log();
  std::vector<nlohmann::json> second(kRevisitNodes);
  testing::run_concurrently(kRevisitNodes, [&](int node) {
    CrawlerSettings settings = settings_of(node);
    settings.revisit_all = true;
    second[size_t(node)] =
        Crawler(settings, std::make_unique<CrawlCheckpoint>(load_crawl_checkpoint(settings.checkpoint.directory)))
            .run();
  });

  // Each node revisited the pages of its own hosts (its pages.jsonl's revisit lines), as many as it
  // counted; together every page of the first round once, and no page twice.
  const HostPartition partition(kRevisitNodes);
  std::set<std::string> revisited;
  for (int node = 0; node < kRevisitNodes; ++node) {
    const nlohmann::json& report = second[size_t(node)];
    EXPECT_EQ(report["crawl"]["stopped_by"], "done") << report.dump(2);
    uint64_t lines = 0;
    for (const auto& [url, records] : testing::read_page_records(dir.path() / ("out" + std::to_string(node)))) {
      EXPECT_EQ(partition.owner(parse_url(url).value().origin_host_port()), uint32_t(node)) << url;
      for (const nlohmann::json& r : records) {
        const std::string outcome = r["outcome"];
        if (outcome != "not_modified" && outcome != "unchanged" && outcome != "changed" && outcome != "gone") continue;
        ++lines;
        EXPECT_TRUE(revisited.insert(url).second) << url << " revisited twice";
      }
    }
    EXPECT_GT(lines, 0u) << "node " << node << " revisited nothing";
    EXPECT_EQ(report["revisits"]["revisited"].get<uint64_t>(), lines) << "node " << node;
  }
  EXPECT_EQ(revisited, std::set<std::string>(truth.begin(), truth.end()));
  const testweb::FetchLogSummary s = web.summary();
  EXPECT_EQ(s.duplicate_fetches, 0u);
  EXPECT_EQ(s.distinct_urls, truth.size());
}

}  // namespace
}  // namespace bloomcrawl
