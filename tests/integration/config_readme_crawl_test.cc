// config/README.md, crawled: the documented behaviour of scope and sitemap settings, held against
// a real crawl of a local test web (docs/testweb.md). Each test names the README row it holds.
#include <filesystem>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/open_web.h"
#include "tests/support/page_records.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

using testing::read_page_records;
using testing::TempDir;
using testweb::OpenWeb;

// README scope: "With `same_host` off and both lists empty, every host is in scope (a whole-web
// crawl)". A few seeds on a web of many hosts, no host or domain listed: every page of every host
// is fetched once, and report.json still counts why links were dropped (here: `exclude`).
TEST(ConfigReadmeCrawl, ScopeSameHostOffAndNoListsCrawlsTheWholeWeb) {
  OpenWeb web({.hosts = 120, .pages_per_host = 3, .cross_links = 2});
  web.start();
  const TempDir out;
  CrawlConfig c;
  c.seeds.urls = {web.page_url(0, 0), web.page_url(5, 0), web.page_url(11, 0)};
  c.scope.same_host = false;
  c.scope.exclude = {"/private/"};
  c.scope.max_depth = -1;
  c.politeness.delay_ms = 0;
  c.politeness.concurrency_per_host = 2;
  c.fetch.transfers_per_thread = 8;
  c.fetch.allowed_ranges = {"127.0.0.0/8"};
  c.fetch.resolve = {web.resolve_entry()};
  c.output.directory = out.path().string();
  validate_config(c);
  const nlohmann::json report = Crawler(settings_from_config(c)).run();
  web.stop();

  EXPECT_EQ(report["crawl"]["stopped_by"], "done");
  std::map<std::string, uint32_t> once;
  for (const std::string& url : web.ground_truth()) once[url] = 1;
  EXPECT_EQ(web.log().fetches, once);
  EXPECT_EQ(web.log().private_requests, 0u);
  const auto records = read_page_records(out.path());
  for (const std::string& url : web.ground_truth()) EXPECT_TRUE(records.contains(url)) << url;
  const nlohmann::json& dropped = report["links"]["dropped_by_reason"];
  EXPECT_GT(dropped.value("excluded", uint64_t{0}), 0u) << dropped.dump();
  EXPECT_FALSE(dropped.contains("host_not_allowed")) << dropped.dump();
}

}  // namespace
}  // namespace bloomcrawl
