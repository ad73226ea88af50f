// 429 and 503 in a crawl: the host backs off and the URL is fetched again, at most
// politeness.backoff.max_retries times; the page behind a transient 503 is not lost, and the
// retries are counted in report.json, not written to pages.jsonl.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/fetch_loopback_server.h"
#include "tests/support/page_records.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

struct BusySite {
  testing::LoopbackHttpServer server;
  std::atomic<int> busy_hits{0}, always_busy_hits{0}, throttled_hits{0}, after_hits{0};

  BusySite() {
    server.server().Get("/", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("<a href='/busy'>b</a><a href='/always-busy'>a</a><a href='/throttled'>t</a>", "text/html");
    });
    // Busy twice (Retry-After far beyond the crawl's cap), then the page, which links on.
    server.server().Get("/busy", [this](const httplib::Request&, httplib::Response& res) {
      if (busy_hits.fetch_add(1) < 2) {
        res.status = 503;
        res.set_header("Retry-After", "86400");
        return;
      }
      res.set_content("<a href='/after-busy'>next</a>", "text/html");
    });
    server.server().Get("/always-busy", [this](const httplib::Request&, httplib::Response& res) {
      always_busy_hits.fetch_add(1);
      res.status = 503;
      res.set_header("Retry-After", "0");
    });
    server.server().Get("/throttled", [this](const httplib::Request&, httplib::Response& res) {
      if (throttled_hits.fetch_add(1) == 0) {
        res.status = 429;
        res.set_header("Retry-After", "0");
        return;
      }
      res.set_content("ok", "text/html");
    });
    server.server().Get("/after-busy", [this](const httplib::Request&, httplib::Response& res) {
      after_hits.fetch_add(1);
      res.set_content("done", "text/html");
    });
    server.start();
  }
};

// The implicit noexcept move reaches nlohmann::json's noexcept move constructor, whose body clang-tidy reads
// as throwing (json_value's constructor holds a throw that no value type reaches).
struct Crawl {  // NOLINT(bugprone-exception-escape): json's noexcept move cannot throw, see above
  nlohmann::json report;
  std::map<std::string, std::vector<nlohmann::json>> records;  // by URL, in order
};

Crawl crawl(BusySite& site, int max_retries, const std::string& name) {
  const fs::path out = fs::temp_directory_path() / (name + "_" + std::to_string(getpid()));
  fs::remove_all(out);
  CrawlConfig c;
  c.seeds.urls = {site.server.url("/")};
  c.scope.allowed_hosts = {"127.0.0.1"};
  c.politeness.delay_ms = 0;
  c.politeness.obey_robots = false;
  // The 86400 s Retry-After is cut to 0 by the cap; without the cap the host would rest for
  // park_s, past the test's 300 s timeout.
  c.politeness.backoff.max_retry_after_s = 0;
  c.politeness.backoff.park_s = 3600;
  c.politeness.backoff.max_retries = max_retries;
  c.fetch.allowed_ranges = {"127.0.0.0/8"};
  c.output.directory = out.string();
  Crawl result;
  result.report = Crawler(settings_from_config(c)).run();
  result.records = testing::read_page_records(out);
  fs::remove_all(out);
  return result;
}

TEST(BackoffCrawl, A503OrA429IsFetchedAgainAndItsPageIsNotLost) {
  BusySite site;
  const Crawl c = crawl(site, 2, "backoff_crawl");
  EXPECT_EQ(c.report["crawl"]["stopped_by"], "done");
  // /busy: 503, 503 (retries 1 and 2), then 200, whose link is followed.
  EXPECT_EQ(site.busy_hits.load(), 3);
  EXPECT_EQ(site.after_hits.load(), 1);
  EXPECT_EQ(site.throttled_hits.load(), 2);
  // /always-busy: the first fetch and two retries; the last 503 is the record.
  EXPECT_EQ(site.always_busy_hits.load(), 3);
  ASSERT_EQ(c.records.at(site.server.url("/always-busy")).size(), 1u);
  EXPECT_EQ(c.records.at(site.server.url("/always-busy"))[0]["status"], 503);
  ASSERT_EQ(c.records.at(site.server.url("/busy")).size(), 1u);
  EXPECT_EQ(c.records.at(site.server.url("/busy"))[0]["status"], 200);
  EXPECT_EQ(c.records.at(site.server.url("/throttled"))[0]["status"], 200);
  EXPECT_EQ(c.report["fetches"]["retried_after_backoff"], 2 + 1 + 2);
  EXPECT_EQ(c.report["fetches"]["pages_fetched"], 5);  // /, /busy, /always-busy, /throttled, /after-busy
}

TEST(BackoffCrawl, ConfigReachesTheCrawler) {
  CrawlConfig c;
  c.seeds.urls = {"http://127.0.0.1/"};
  c.politeness.backoff.on_429_503 = false;
  c.politeness.backoff.max_retry_after_s = 7;
  c.politeness.backoff.max_retries = 5;
  const CrawlerSettings s = settings_from_config(c);
  EXPECT_FALSE(s.backoff.on_429_503);
  EXPECT_EQ(s.backoff.max_retry_after, std::chrono::seconds(7));
  EXPECT_EQ(s.backoff.max_retries, 5u);
}

TEST(BackoffCrawl, NoRetriesWhenMaxRetriesIsZero) {
  BusySite site;
  const Crawl c = crawl(site, 0, "backoff_crawl_none");
  EXPECT_EQ(site.busy_hits.load(), 1);
  EXPECT_EQ(site.after_hits.load(), 0);
  EXPECT_EQ(site.always_busy_hits.load(), 1);
  EXPECT_EQ(c.records.at(site.server.url("/busy"))[0]["status"], 503);
  EXPECT_EQ(c.report["fetches"]["retried_after_backoff"], 0);
}

}  // namespace
}  // namespace bloomcrawl
