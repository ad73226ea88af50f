// A crawl whose frontier runs at the minimum memory limit (frontier.memory_limit_mb = 1) over a
// test web of many hosts, so the hosts' in-RAM heads exceed their budget and URLs wait in the
// store on disk: the crawl still fetches exactly the ground truth, nothing twice, with a record
// per URL, and the frontier's own memory stays within the limit. Also: the live store is scratch,
// gone when the crawl ends.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_web.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

TEST(DiskFrontierCrawl, AtTheMinimumMemoryLimitFetchesTheGroundTruthOnceOverManyHosts) {
  testweb::TestWebOptions o;
  o.hosts.clear();
  for (int i = 2; i < 122; ++i) o.hosts.push_back("127.0.1." + std::to_string(i));  // 120 hosts
  o.pages_per_host = 20;
  o.trap = false;
  o.threads_per_host = 2;
  testweb::TestWeb web(o);
  web.start();

  const testing::TempDir dir;
  CrawlConfig c;
  c.seeds.urls = {web.seed_url()};
  c.scope.allowed_hosts = o.hosts;
  c.scope.max_depth = -1;
  c.politeness.delay_ms = 0;
  c.politeness.concurrency_per_host = 2;
  c.fetch.allowed_ranges = {"127.0.0.0/8"};
  c.frontier.memory_limit_mb = 1;
  c.output.directory = (dir.path() / "out").string();
  c.checkpoint.directory = (dir.path() / "ckpt").string();
  validate_config(c);
  CrawlerSettings settings = settings_from_config(c);
  settings.checkpoint.directory = c.checkpoint.directory;
  settings.checkpoint.interval_pages = 1000;  // generations cut while URLs wait on disk
  settings.checkpoint.config = nlohmann::json::object();
  const fs::path live_store = frontier_store_directory(settings);
  const nlohmann::json report = Crawler(settings).run();
  web.stop();

  EXPECT_EQ(report["crawl"]["stopped_by"], "done") << report.dump(1);
  const std::vector<std::string> truth_list = web.ground_truth(web.site_depth());
  const std::set<std::string> truth(truth_list.begin(), truth_list.end());
  ASSERT_GT(truth.size(), 1500u) << "the site must outgrow the frontier's RAM";
  std::set<std::string> fetched;
  std::map<std::string, std::string> unfetched;                // URL -> its record, for the failure message
  std::map<std::string, std::vector<std::string>> records_of;  // URL -> its records, the same
  uint64_t records = 0;
  std::ifstream pages(dir.path() / "out" / "pages.jsonl");
  for (std::string line; std::getline(pages, line); ++records) {
    const nlohmann::json r = nlohmann::json::parse(line);
    records_of[r["url"].get<std::string>()].push_back(line);
    if (r["status"].get<long>() != 0) {
      fetched.insert(r["url"].get<std::string>());
    } else {
      unfetched[r["url"].get<std::string>()] = line;
    }
  }
  std::vector<std::string> missing;
  std::set_difference(truth.begin(), truth.end(), fetched.begin(), fetched.end(), std::back_inserter(missing));
  std::string why;
  for (const std::string& url : missing)
    why += "\n  " + (unfetched.contains(url) ? unfetched[url] : url + ": no record");
  EXPECT_TRUE(missing.empty()) << "not fetched:" << why;
  const testweb::FetchLogSummary s = web.summary();
  // A duplicate shows with its records: two records of one URL are a second admission (the seen
  // filter, the frontier); one record is a request the server saw twice (a transport retry).
  std::string duplicates;
  for (const testweb::DuplicateUrl& d : s.duplicates) {
    duplicates += "\n  " + d.url + ": " + std::to_string(d.fetches) + " requests" +
                  (d.after_server_error ? " (after 5xx)" : "") + ", records:";
    for (const std::string& line : records_of[d.url]) duplicates += "\n    " + line;
  }
  EXPECT_EQ(s.duplicate_fetches, 0u) << duplicates;
  EXPECT_EQ(s.robots_violations, 0u);
  EXPECT_EQ(records, report["links"]["new"].get<uint64_t>()) << "one record per admitted URL";
  EXPECT_GE(report["checkpoint"]["taken"].get<uint64_t>(), 4u);
  EXPECT_LE(report["frontier"]["memory_bytes"].get<uint64_t>(), uint64_t{1} << 20);
  EXPECT_FALSE(fs::exists(live_store)) << "the live store is scratch";
  EXPECT_TRUE(fs::exists(dir.path() / "ckpt" / report["checkpoint"]["manifest"].get<std::string>()));
}

}  // namespace
}  // namespace bloomcrawl
