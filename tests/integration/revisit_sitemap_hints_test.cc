// Sitemap hints in the crawl (docs/recrawl.md, rule 7): a loopback site whose robots.txt names a
// sitemap giving <changefreq> and <lastmod> for its pages. The first crawl stores the hints in the
// pages' records and their next fetch times follow them; a revisit round reads the sitemap again
// (its record marks it a sitemap), and a <lastmod> later than a page's fetch makes that page due
// the minimum interval after it.
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/persist/crawl_checkpoint.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/fetch_loopback_server.h"
#include "tests/support/recrawl_crawl.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_web_config.h"

namespace bloomcrawl {
namespace {

constexpr int64_t kMinIntervalS = 60;
constexpr int64_t kDayS = 86400;

// "/" and four pages the sitemap lists: /hourly and /always with their <changefreq>, /plain with
// no hint, /edited with a <lastmod> set by the test (round 1: long ago).
class SitemapSite {
 public:
  SitemapSite() {
    server_.server().Get(R"(/.*)", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard lock(mu_);
      ++requests_[req.path];
      if (req.path == "/robots.txt") {
        res.set_content("User-agent: *\nAllow: /\nSitemap: " + url("/sitemap.xml") + "\n", "text/plain");
      } else if (req.path == "/sitemap.xml") {
        res.set_content(
            "<?xml version='1.0'?><urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>"
            "<url><loc>" +
                url("/hourly") +
                "</loc><changefreq>hourly</changefreq></url>"
                "<url><loc>" +
                url("/always") +
                "</loc><changefreq>always</changefreq></url>"
                "<url><loc>" +
                url("/plain") +
                "</loc></url>"
                "<url><loc>" +
                url("/edited") + "</loc><lastmod>" + edited_lastmod_ +
                "</lastmod></url>"
                "</urlset>",
            "application/xml");
      } else {
        res.set_content("<html><body>" + req.path + "</body></html>", "text/html");
      }
    });
    server_.start();
  }
  std::string url(const std::string& path) const { return server_.url(path); }
  void set_edited_lastmod(std::string w3c) {
    std::lock_guard lock(mu_);
    edited_lastmod_ = std::move(w3c);
    requests_.clear();
  }
  int requests(const std::string& path) {
    std::lock_guard lock(mu_);
    return requests_[path];
  }

 private:
  testing::LoopbackHttpServer server_;
  std::mutex mu_;
  std::string edited_lastmod_ = "2000-01-01";
  std::map<std::string, int> requests_;
};

std::string w3c_utc(int64_t unix_s) {
  const std::time_t t = unix_s;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

TEST(RevisitSitemapHintsTest, NextFetchTimesFollowTheSitemapsChangefreqAndLastmod) {
  SitemapSite site;
  const testing::TempDir dir;
  CrawlConfig c = testing::recrawl_crawl_config(site.url("/"), dir.path());
  c.politeness.use_sitemaps_as_seeds = true;
  c.recrawl.min_interval_s = kMinIntervalS;
  const CrawlerSettings settings = testing::checkpointed_settings(c);
  const auto records = [&] { return testing::checkpoint_url_records(dir.path() / "ckpt"); };
  const auto interval_s = testing::scheduled_interval_s;

  ASSERT_EQ(Crawler(settings).run()["crawl"]["stopped_by"], "done");
  std::map<std::string, UrlRecord> first = records();
  for (const char* path : {"/hourly", "/always", "/plain", "/edited", "/sitemap.xml"}) {
    ASSERT_TRUE(first.contains(site.url(path))) << path;
    ASSERT_EQ(first[site.url(path)].outcome, UrlOutcome::kFetched) << path;
  }
  EXPECT_NE(first[site.url("/sitemap.xml")].flags & kRecordSitemap, 0u);
  EXPECT_EQ(first[site.url("/plain")].flags & kRecordSitemap, 0u);
  EXPECT_EQ(first[site.url("/hourly")].sitemap_changefreq, 2);
  EXPECT_EQ(first[site.url("/edited")].sitemap_lastmod_s, 946684800);  // 2000-01-01
  EXPECT_EQ(interval_s(first[site.url("/hourly")]), 3600) << "changefreq hourly: at most an hour";
  EXPECT_EQ(interval_s(first[site.url("/always")]), kMinIntervalS) << "changefreq always: the minimum";
  EXPECT_EQ(interval_s(first[site.url("/plain")]), kDayS) << "no hint: a sitemap's page, at most a day";
  EXPECT_EQ(interval_s(first[site.url("/edited")]), kDayS) << "a lastmod before the fetch changes nothing";

  // Round 2: every record due; the sitemap, read again, says /edited was modified after any fetch
  // of this round (an hour from now).
  const int64_t edited_s =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count() +
      3600;
  site.set_edited_lastmod(w3c_utc(edited_s));
  CrawlerSettings resumed = settings;
  resumed.revisit_all = true;
  const nlohmann::json report =
      Crawler(resumed, std::make_unique<CrawlCheckpoint>(load_crawl_checkpoint(dir.path() / "ckpt"))).run();
  ASSERT_EQ(report["crawl"]["stopped_by"], "done") << report["crawl"].dump();
  EXPECT_EQ(site.requests("/sitemap.xml"), 1);
  EXPECT_EQ(site.requests("/edited"), 1);
  std::map<std::string, UrlRecord> second = records();
  const UrlRecord& edited = second[site.url("/edited")];
  EXPECT_EQ(edited.fetch_count, 2u);
  EXPECT_EQ(edited.sitemap_lastmod_s, edited_s) << "the sitemap read again as a sitemap";
  EXPECT_EQ(interval_s(edited), kMinIntervalS) << "modified after its fetch: due the minimum after it";
  EXPECT_EQ(interval_s(second[site.url("/hourly")]), 3600);
  EXPECT_EQ(interval_s(second[site.url("/always")]), kMinIntervalS);
  EXPECT_EQ(interval_s(second[site.url("/plain")]), kDayS);
}

}  // namespace
}  // namespace bloomcrawl
