// The crawler end to end against the local test web: what it fetches is checked against the
// site's ground truth and against the server's own log of every request (duplicates, robots and
// nofollow violations, politeness). Built under TSan too: the pipeline is the concurrent part.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/test_web.h"
#include "tests/support/warcio.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using testweb::TestWeb;
using testweb::TestWebOptions;

class CrawlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    out_ = fs::temp_directory_path() / ("crawl_test_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(out_);
  }
  void TearDown() override { fs::remove_all(out_); }

  // The crawl an operator would configure for the test web: its three hosts, no delay.
  CrawlConfig config_for(const TestWeb& web) {
    CrawlConfig c;
    c.seeds.urls = {web.seed_url()};
    c.scope.allowed_hosts = web.options().hosts;
    c.scope.max_depth = 10;
    c.politeness.delay_ms = 0;
    c.politeness.concurrency_per_host = 4;
    c.fetch.allowed_ranges = {"127.0.0.0/8"};
    c.fetch.connect_timeout_ms = 5000;
    c.fetch.total_timeout_ms = 20000;
    c.seen_filter.initial_capacity = 1000;  // forces the filter through several layers
    c.output.directory = out_.string();
    return c;
  }

  static nlohmann::json crawl(const CrawlConfig& c) {
    validate_config(c);
    Crawler crawler(settings_from_config(c));
    return crawler.run();
  }

  // URLs the crawler fetched (got a response for), from pages.jsonl.
  std::set<std::string> fetched_urls() const {
    std::set<std::string> urls;
    std::ifstream in(out_ / "pages.jsonl");
    for (std::string line; std::getline(in, line);) {
      nlohmann::json j = nlohmann::json::parse(line);
      if (j["status"].get<long>() != 0) urls.insert(j["url"].get<std::string>());
    }
    return urls;
  }

  fs::path out_;
};

std::set<std::string> as_set(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

TEST_F(CrawlTest, FetchesExactlyTheGroundTruthAndNothingTwice) {
  TestWebOptions o;
  o.trap = false;  // the trap is infinite: only a depth limit ends it (see the trap test)
  TestWeb web(o);
  web.start();
  CrawlConfig c = config_for(web);
  c.scope.max_depth = -1;
  nlohmann::json report = crawl(c);
  web.stop();

  std::set<std::string> fetched = fetched_urls();
  std::set<std::string> truth = as_set(web.ground_truth(web.site_depth()));
  std::vector<std::string> missing;
  std::vector<std::string> extra;
  std::set_difference(truth.begin(), truth.end(), fetched.begin(), fetched.end(), std::back_inserter(missing));
  std::set_difference(fetched.begin(), fetched.end(), truth.begin(), truth.end(), std::back_inserter(extra));
  EXPECT_TRUE(missing.empty()) << "not fetched: " << ::testing::PrintToString(missing);
  EXPECT_TRUE(extra.empty()) << "fetched, not in the ground truth: " << ::testing::PrintToString(extra);
  testweb::FetchLogSummary s = web.summary();
  EXPECT_EQ(s.duplicate_fetches, 0u);
  EXPECT_EQ(s.robots_violations, 0u);
  EXPECT_EQ(s.nofollow_violations, 0u);
  EXPECT_EQ(s.unknown_url_requests, 0u) << "a link was resolved wrongly";
  for (const auto& host : s.hosts) {
    EXPECT_EQ(host.requests_before_robots_txt, 0u) << host.host << ": robots.txt comes first";
    EXPECT_LE(host.max_in_flight, 4u) << host.host;
  }
  // The report accounts for the savings the server did not see.
  EXPECT_EQ(report["fetches"]["pages_fetched"].get<uint64_t>(), s.page_requests);
  EXPECT_GT(report["duplicates_avoided"]["total"].get<uint64_t>(), report["links"]["new"].get<uint64_t>());
  EXPECT_GT(report["redirects"]["followed"].get<uint64_t>(), 0u);
  EXPECT_GT(report["redirects"]["deduplicated"].get<uint64_t>(), 0u);
  EXPECT_EQ(report["crawl"]["stopped_by"], "done");
}

// A URL's depth is the depth at which the crawler first found it (as in Heritrix and Scrapy):
// with pages fetched concurrently that can exceed its shortest-path depth, so a depth-limited
// crawl fetches a subset of the shortest-path ground truth, and never anything deeper.
TEST_F(CrawlTest, DepthLimitBoundsTheCrawl) {
  TestWeb web(TestWebOptions{});
  web.start();
  CrawlConfig c = config_for(web);
  c.scope.max_depth = 2;
  c.politeness.concurrency_per_host = 1;
  crawl(c);
  web.stop();
  std::set<std::string> fetched = fetched_urls();
  std::set<std::string> truth = as_set(web.ground_truth(2));
  EXPECT_TRUE(std::includes(truth.begin(), truth.end(), fetched.begin(), fetched.end()));
  std::set<std::string> first_hop = as_set(web.ground_truth(1));
  EXPECT_TRUE(std::includes(fetched.begin(), fetched.end(), first_hop.begin(), first_hop.end()));
  EXPECT_EQ(web.summary().duplicate_fetches, 0u);
}

TEST_F(CrawlTest, TrapIsStoppedByTheDepthLimit) {
  TestWeb web(TestWebOptions{});
  web.start();
  CrawlConfig c = config_for(web);
  c.scope.max_depth = 14;
  nlohmann::json report = crawl(c);
  web.stop();
  const std::vector<std::string> trap = web.ground_truth_detail(14).trap_urls();
  ASSERT_FALSE(trap.empty());
  EXPECT_GT(web.summary().trap_requests, 0u);
  EXPECT_LE(web.summary().trap_requests, trap.size());
  EXPECT_EQ(report["crawl"]["stopped_by"], "done");
  EXPECT_GT(report["links"]["too_deep"].get<uint64_t>(), 0u);
}

TEST_F(CrawlTest, PageLimitsHold) {
  TestWeb web(TestWebOptions{});
  web.start();
  CrawlConfig c = config_for(web);
  c.scope.max_pages = 25;
  nlohmann::json report = crawl(c);
  EXPECT_EQ(web.summary().page_requests, 25u);
  EXPECT_EQ(report["crawl"]["stopped_by"], "page_limit");

  web.clear_log();
  fs::remove_all(out_);
  c.scope.max_pages = 0;
  c.scope.max_pages_per_host = 7;
  crawl(c);
  web.stop();
  std::map<std::string, uint64_t> per_host;
  for (const auto& r : web.requests()) per_host[r.host] += r.robots_txt ? 0 : 1;
  ASSERT_EQ(per_host.size(), 3u);
  for (const auto& [host, pages] : per_host) EXPECT_EQ(pages, 7u) << host;
}

TEST_F(CrawlTest, PolitenessDelayAndConcurrencyHoldAtTheServer) {
  TestWebOptions o;
  o.pages_per_host = 12;
  o.trap = false;
  o.response_delay = std::chrono::milliseconds(5);
  TestWeb web(o);
  web.start();
  CrawlConfig c = config_for(web);
  c.politeness.delay_ms = 40;
  c.politeness.concurrency_per_host = 1;
  crawl(c);
  web.stop();
  testweb::FetchLogSummary s = web.summary();
  ASSERT_EQ(s.hosts.size(), 3u);
  for (const auto& host : s.hosts) {
    EXPECT_EQ(host.max_in_flight, 1u) << host.host;
    // The delay runs from the end of one response to the start of the next request.
    EXPECT_GE(host.min_interval_end_to_start_ms, 40.0) << host.host;
  }
  EXPECT_EQ(s.duplicate_fetches, 0u);
}

// --audit with parse workers admitting the same links at once: a filter sized so that it cannot
// make a false positive here (estimate far below 1e-9) must count none, however the workers'
// filter inserts and audit steps interleave (the race is in crawler/persist/audit_set.h).
TEST_F(CrawlTest, AuditCountsNoFalsePositiveWhenTheFilterCannotMakeOne) {
  TestWebOptions o;
  o.trap = false;
  TestWeb web(o);
  web.start();
  CrawlConfig c = config_for(web);
  c.seen_filter.initial_capacity = 100000;
  c.seen_filter.target_fpr = 1e-9;  // and at 1% fill the real rate is far lower still
  validate_config(c);
  CrawlerSettings s = settings_from_config(c);
  s.audit = true;
  s.parse_threads = 4;  // more workers admitting the same links than cores: more interleavings
  Crawler crawler(std::move(s));
  nlohmann::json report = crawler.run();
  web.stop();
  ASSERT_TRUE(report.contains("audit")) << report.dump(2);
  const nlohmann::json& audit = report["audit"];
  EXPECT_LT(audit["filter_estimated_false_positives"].get<double>(), 1e-9) << audit.dump();
  EXPECT_EQ(audit["false_positives"].get<uint64_t>(), 0u) << audit.dump();
  EXPECT_TRUE(audit["count_within_expected_range"].get<bool>()) << audit.dump();
  // Every URL the filter answered for was admitted once: the exact set and the filter agree.
  EXPECT_EQ(audit["admitted_urls"].get<uint64_t>(), report["seen_filter"]["keys"].get<uint64_t>());
  EXPECT_EQ(audit["exact_urls"].get<uint64_t>(), audit["admitted_urls"].get<uint64_t>());
  EXPECT_EQ(web.summary().duplicate_fetches, 0u);
}

TEST_F(CrawlTest, WarcHoldsEveryHtmlResponse) {
  TestWebOptions o;
  o.pages_per_host = 8;
  o.trap = false;
  TestWeb web(o);
  web.start();
  CrawlConfig c = config_for(web);
  c.output.warc.enabled = true;
  nlohmann::json report = crawl(c);
  web.stop();
  size_t files = 0;
  std::vector<fs::path> warcs;
  for (const auto& e : fs::directory_iterator(out_ / "warc")) {
    if (e.path().extension() == ".cdxj") continue;  // the index beside it (docs/warc.md)
    ++files;
    EXPECT_EQ(e.path().extension(), ".gz") << "completed, not left open";
    warcs.push_back(e.path());
  }
  EXPECT_EQ(files, 1u);

  // pages.jsonl joins the WARC: same URL, fetch time, server address and payload digest
  // (docs/pages-format.md), and warcio finds every digest right.
  std::map<std::string, nlohmann::json> responses;
  for (const nlohmann::json& r : testing::read_with_warcio(warcs)) {
    if (r["type"] == "warcinfo") continue;
    EXPECT_EQ(r["block_digest"], r["block_digest_computed"]) << r.dump();
    if (r["type"] == "response") {
      EXPECT_EQ(r["payload_digest"], r["payload_digest_computed"]) << r.dump();
      EXPECT_TRUE(responses.emplace(r["target"].get<std::string>(), r).second) << "archived twice: " << r["target"];
    }
  }
  size_t joined = 0;
  std::set<std::string> ok_urls;
  std::ifstream pages(out_ / "pages.jsonl");
  for (std::string line; std::getline(pages, line);) {
    const nlohmann::json p = nlohmann::json::parse(line);
    if (p["outcome"] == "ok") ok_urls.insert(p["url"].get<std::string>());
    if (p["outcome"] != "ok" || !p["content_type"].get<std::string>().starts_with("text/html")) continue;
    ASSERT_TRUE(responses.contains(p["url"])) << line;
    const nlohmann::json& r = responses.at(p["url"]);
    EXPECT_EQ(p["fetch_time"], r["date"]) << line;
    EXPECT_EQ(p["ip"], r["ip"]) << line;
    EXPECT_EQ(p["payload_digest"], r["payload_digest"]) << line;
    EXPECT_EQ(p["http_version"], "1.1") << line;
    EXPECT_GT(p["wire_bytes"].get<uint64_t>(), p["bytes"].get<uint64_t>() / 20) << line;
    ++joined;
  }
  for (const auto& [url, r] : responses) EXPECT_TRUE(ok_urls.contains(url)) << url << ": archived, not recorded";
  EXPECT_GT(joined, 10u);
}

}  // namespace
}  // namespace bloomcrawl
