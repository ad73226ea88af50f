// Sitemaps named in robots.txt feed the crawl when politeness.use_sitemaps_as_seeds is on:
// an index, a gzip'd sitemap, and pages that no page links to.
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/fetch_loopback_server.h"
#include "tests/support/gzip.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using testing::gzip;

class SitemapCrawlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    out_ = fs::temp_directory_path() / ("sitemap_crawl_" + std::to_string(getpid()));
    fs::remove_all(out_);
    auto& s = server_.server();
    s.Get("/robots.txt", [this](const httplib::Request& req, httplib::Response& res) {
      log(req.path);
      res.set_content("User-agent: *\nDisallow: /private/\nSitemap: " + server_.url("/sitemap_index.xml") + "\n",
                      "text/plain");
    });
    s.Get("/sitemap_index.xml", [this](const httplib::Request& req, httplib::Response& res) {
      log(req.path);
      res.set_content("<sitemapindex><sitemap><loc>" + server_.url("/pages.xml.gz") + "</loc></sitemap><sitemap><loc>" +
                          server_.url("/sitemap_index.xml") + "</loc></sitemap></sitemapindex>",
                      "application/xml");
    });
    s.Get("/pages.xml.gz", [this](const httplib::Request& req, httplib::Response& res) {
      log(req.path);
      std::string xml = "<urlset>";
      for (const char* p :
           {"/only-in-sitemap/1", "/only-in-sitemap/2", "/", "/private/secret", "/only-in-sitemap/1#dup"}) {
        xml += "<url><loc>" + server_.url(p) + "</loc></url>";
      }
      xml += "<url><loc>http://elsewhere.invalid/</loc></url></urlset>";
      res.set_content(gzip(xml), "application/x-gzip");
    });
    s.Get(R"(/.*)", [this](const httplib::Request& req, httplib::Response& res) {
      log(req.path);
      res.set_content("<html><body><a href='/linked'>x</a></body></html>", "text/html");
    });
    server_.start();
  }
  void TearDown() override {
    server_.stop();
    fs::remove_all(out_);
  }
  void log(const std::string& path) {
    std::lock_guard lock(mu_);
    ++requests_[path];
  }

  testing::LoopbackHttpServer server_;
  fs::path out_;
  std::mutex mu_;
  std::map<std::string, int> requests_;
};

TEST_F(SitemapCrawlTest, SitemapPagesAreCrawledOnceAndRobotsStillHolds) {
  CrawlConfig c;
  c.seeds.urls = {server_.url("/")};
  c.politeness.delay_ms = 0;
  c.politeness.use_sitemaps_as_seeds = true;
  c.fetch.allowed_ranges = {"127.0.0.0/8"};
  c.output.directory = out_.string();
  nlohmann::json report = Crawler(settings_from_config(c)).run();
  server_.stop();

  std::map<std::string, int> expected = {
      {"/robots.txt", 1}, {"/sitemap_index.xml", 1}, {"/pages.xml.gz", 1},     {"/", 1},
      {"/linked", 1},     {"/only-in-sitemap/1", 1}, {"/only-in-sitemap/2", 1}};
  EXPECT_EQ(requests_, expected);
  EXPECT_EQ(report["fetches"]["sitemaps_fetched"].get<uint64_t>(), 2u);
  EXPECT_EQ(report["fetches"]["robots_disallowed"].get<uint64_t>(), 1u);
}

}  // namespace
}  // namespace bloomcrawl
