// Open-scope crawls across many host names (issue 15): one seed, links across a few hundred hosts
// served by one loopback server (open_web.h) and reached through fetch.resolve. Every page is
// fetched once, no disallowed page at all, robots.txt fetches never exceed their share of the
// in-flight budget (robots_share.h) while pages keep being fetched; and an internal error
// injected on each worker path (worker_fault.h) is survived: the crawl finishes with the page
// recorded as crawler_error, or its robots.txt tried again. The 10,000-host run is bench/openscope_bench.sh.
#include <atomic>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "crawler/pipeline/robots_share.h"
#include "tests/support/open_web.h"
#include "tests/support/page_records.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

using std::chrono::milliseconds;
using testing::read_page_records;
using testing::TempDir;
using testweb::OpenWeb;
using testweb::OpenWebOptions;

constexpr int kThreads = 2;
constexpr int kTransfersPerThread = 8;

CrawlerSettings open_scope_settings(const OpenWeb& web, const std::filesystem::path& out) {
  CrawlConfig c;
  c.seeds.urls = {web.seed_url()};
  c.scope.allowed_domains = {"test"};
  c.scope.max_depth = -1;
  c.politeness.delay_ms = 0;
  c.politeness.concurrency_per_host = 2;
  c.fetch.threads = kThreads;
  c.fetch.transfers_per_thread = kTransfersPerThread;
  c.fetch.allowed_ranges = {"127.0.0.0/8"};
  c.fetch.resolve = {web.resolve_entry()};
  c.output.directory = out.string();
  CrawlerSettings s = settings_from_config(c);
  s.robots.retry_initial = milliseconds(10);  // a robots.txt tried again comes back at once
  return s;
}

// Every ground-truth page has exactly one record, and its outcome is `outcome` (ok unless named).
void expect_records(const std::filesystem::path& out, const OpenWeb& web,
                    const std::map<std::string, std::string>& outcome_of = {}) {
  const auto records = read_page_records(out);
  for (const std::string& url : web.ground_truth()) {
    auto it = records.find(url);
    ASSERT_NE(it, records.end()) << url;
    ASSERT_EQ(it->second.size(), 1u) << url;
    auto named = outcome_of.find(url);
    EXPECT_EQ(it->second[0]["outcome"], named == outcome_of.end() ? "ok" : named->second) << url;
  }
}

TEST(OpenScopeCrawl, EveryPageOnceWithRobotsTxtWithinItsShare) {
  OpenWeb web({.hosts = 300, .pages_per_host = 3, .cross_links = 3, .robots_delay = milliseconds(20)});
  web.start();
  const TempDir out;
  const nlohmann::json report = Crawler(open_scope_settings(web, out.path())).run();
  web.stop();

  const testweb::OpenWebLog log = web.log();
  std::map<std::string, uint32_t> once;
  for (const std::string& url : web.ground_truth()) once[url] = 1;
  EXPECT_EQ(log.fetches, once);
  EXPECT_EQ(log.private_requests, 0u);
  EXPECT_EQ(log.robots_requests, 300u);
  expect_records(out.path(), web);

  const size_t share = RobotsShare::slots_for(size_t{kThreads} * kTransfersPerThread);
  EXPECT_EQ(report["fetches"]["robots_share"]["slots"], share);
  EXPECT_LE(report["fetches"]["robots_share"]["peak_in_flight"].get<size_t>(), share);
  EXPECT_LE(log.robots_peak, share);
  // Pages were fetched while robots.txt files were being answered, not held behind them.
  EXPECT_GT(log.pages_during_robots, 0u);
}

struct Injected {
  WorkerPath path;
  std::string url;
  std::atomic<int> fired{0};
};

// One crawl of a small open web with one throw on `path` for `url`.
void crawl_with_fault(OpenWeb& web, const std::filesystem::path& out, Injected& fault) {
  CrawlerSettings s = open_scope_settings(web, out);
  s.inject_fault = [&fault](WorkerPath path, std::string_view url) {
    if (path == fault.path && url == fault.url && fault.fired.fetch_add(1) == 0) {
      throw std::runtime_error("injected fault");
    }
  };
  Crawler(std::move(s)).run();  // returns: the pending count came back to zero
  web.stop();
  EXPECT_EQ(fault.fired.load() >= 1, true) << "the fault was never reached";
}

// No cross links: a page's own links lead only to its host's next page, so a page that yields no
// links (its last page) costs the crawl nothing else.
OpenWebOptions small_web() { return {.hosts = 20, .pages_per_host = 3, .cross_links = 0}; }

std::string record_error(const std::filesystem::path& out, const std::string& url) {
  return read_page_records(out).at(url).at(0)["error"].get<std::string>();
}

class PageFault : public ::testing::TestWithParam<WorkerPath> {};

TEST_P(PageFault, PageRecordedAsCrawlerErrorAndCrawlGoesOn) {
  OpenWeb web(small_web());
  web.start();
  const TempDir out;
  Injected fault{GetParam(), web.page_url(5, 2)};
  crawl_with_fault(web, out.path(), fault);
  expect_records(out.path(), web, {{fault.url, "crawler_error"}});
  EXPECT_NE(record_error(out.path(), fault.url).find("injected fault"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(WorkerPaths, PageFault,
                         ::testing::Values(WorkerPath::kFetchComplete, WorkerPath::kLinkExtraction));

TEST(WorkerFault, PageNotMarkedDoneKeepsItsRecordAndCrawlGoesOn) {
  OpenWeb web(small_web());
  web.start();
  const TempDir out;
  Injected fault{WorkerPath::kPageProcessed, web.page_url(5, 1)};
  crawl_with_fault(web, out.path(), fault);
  // The record was written before the checkpointer was told; the links were followed.
  expect_records(out.path(), web);
}

class RobotsFault : public ::testing::TestWithParam<WorkerPath> {};

TEST_P(RobotsFault, RobotsTxtTriedAgainAndItsHostCrawled) {
  OpenWeb web(small_web());
  web.start();
  const TempDir out;
  Injected fault{GetParam(), "http://" + OpenWeb::host(5) + ":" + std::to_string(web.port()) + "/robots.txt"};
  crawl_with_fault(web, out.path(), fault);
  expect_records(out.path(), web);
  EXPECT_EQ(web.log().robots_requests, 21u);  // host 5's twice
  EXPECT_EQ(web.log().private_requests, 0u);
}

INSTANTIATE_TEST_SUITE_P(WorkerPaths, RobotsFault, ::testing::Values(WorkerPath::kFetchComplete, WorkerPath::kRobots));

}  // namespace
}  // namespace bloomcrawl
