// config/README.md, crawled: the documented behaviour of scope, sitemap and fetch-limit settings, held
// against a real crawl of a local test web (docs/testweb.md). Each test names the README row it holds.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <string>

#include <gtest/gtest.h>
#include <zlib.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/fetch_loopback_server.h"
#include "tests/support/open_web.h"
#include "tests/support/page_records.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

using testing::read_page_records;
using testing::TempDir;
using testweb::OpenWeb;

std::string testing_read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

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

// README politeness.use_sitemaps_as_seeds: "still subject to scope". A robots.txt `Sitemap:` line
// and a sitemap index entry naming another host: that host is never requested (server-counted by
// the Host header), and the drops are counted like links.
class SitemapScopeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto& s = server_.server();
    const std::string other = "http://other.test:" + std::to_string(port()) + "/";
    s.Get("/robots.txt", [this, other](const httplib::Request& req, httplib::Response& res) {
      log(req);
      res.set_content("User-agent: *\nSitemap: " + server_.url("/index.xml") + "\nSitemap: " + other + "sitemap.xml\n",
                      "text/plain");
    });
    s.Get("/index.xml", [this, other](const httplib::Request& req, httplib::Response& res) {
      log(req);
      res.set_content("<sitemapindex><sitemap><loc>" + server_.url("/pages.xml") + "</loc></sitemap><sitemap><loc>" +
                          other + "index.xml</loc></sitemap></sitemapindex>",
                      "application/xml");
    });
    s.Get("/pages.xml", [this](const httplib::Request& req, httplib::Response& res) {
      log(req);
      res.set_content("<urlset><url><loc>" + server_.url("/from-sitemap") + "</loc></url></urlset>", "application/xml");
    });
    s.Get(R"(/.*)", [this](const httplib::Request& req, httplib::Response& res) {
      log(req);
      res.set_content("<html><body>no links</body></html>", "text/html");
    });
    server_.start();
  }
  void TearDown() override { server_.stop(); }

  uint16_t port() const { return uint16_t(std::stoi(server_.url("").substr(std::string("http://127.0.0.1:").size()))); }
  void log(const httplib::Request& req) {
    std::lock_guard lock(mu_);
    ++requests_[req.get_header_value("Host") + req.path];
  }

  testing::LoopbackHttpServer server_;
  std::mutex mu_;
  std::map<std::string, int> requests_;  // "host:port/path" -> requests
};

TEST_F(SitemapScopeTest, PolitenessUseSitemapsAsSeedsNeverRequestsAHostOutOfScope) {
  const TempDir out;
  CrawlConfig c;
  c.seeds.urls = {server_.url("/")};
  c.politeness.delay_ms = 0;
  c.politeness.use_sitemaps_as_seeds = true;
  c.fetch.allowed_ranges = {"127.0.0.0/8"};
  c.fetch.resolve = {"other.test:" + std::to_string(port()) + ":127.0.0.1"};
  c.output.directory = out.path().string();
  validate_config(c);
  const nlohmann::json report = Crawler(settings_from_config(c)).run();
  server_.stop();

  const std::string self = "127.0.0.1:" + std::to_string(port());
  std::map<std::string, int> expected{{self + "/robots.txt", 1},
                                      {self + "/", 1},
                                      {self + "/index.xml", 1},
                                      {self + "/pages.xml", 1},
                                      {self + "/from-sitemap", 1}};
  EXPECT_EQ(requests_, expected) << "other.test must never be asked for anything";
  EXPECT_EQ(report["links"]["dropped_by_reason"].value("host_not_allowed", uint64_t{0}), 2u);
}

// Every gzip member of `path`, inflated and concatenated (a WARC file is one member per record).
std::string gunzip_members(const std::filesystem::path& path) {
  const std::string packed = testing_read_file(path);
  std::string out;
  z_stream z{};
  inflateInit2(&z, 16 + MAX_WBITS);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  z.avail_in = uInt(packed.size());
  char buffer[1 << 14];
  while (z.avail_in > 0) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    const int rc = inflate(&z, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - z.avail_out);
    if (rc == Z_STREAM_END) {
      inflateReset(&z);
    } else if (rc != Z_OK) {
      break;
    }
  }
  inflateEnd(&z);
  return out;
}

// README fetch.max_body_bytes: "larger bodies are truncated and marked so". A page over the limit
// is kept: its links before the cut are followed, pages.jsonl says "truncated": true, its WARC
// record `WARC-Truncated: length`; and large pages are no host errors (error_budget 1 and a long
// park would stall the crawl if they were).
TEST(ConfigReadmeCrawl, FetchMaxBodyBytesTruncatesAndKeepsThePage) {
  testing::LoopbackHttpServer server;
  std::mutex mu;
  std::map<std::string, int> requests;
  const std::string filler(4000, 'x');
  server.server().Get(R"(/.*)", [&](const httplib::Request& req, httplib::Response& res) {
    {
      std::lock_guard lock(mu);
      ++requests[req.path];
    }
    if (req.path == "/" || req.path.starts_with("/big")) {
      res.set_content("<html><body><a href='/big1'>1</a><a href='/big2'>2</a><a href='/big3'>3</a><p>" + filler +
                          "</p><a href='/after-the-cut'>late</a></body></html>",
                      "text/html");
    } else {
      res.set_content("<html><body>small</body></html>", "text/html");
    }
  });
  server.start();
  const TempDir out;
  CrawlConfig c;
  c.seeds.urls = {server.url("/")};
  c.politeness.delay_ms = 0;
  c.politeness.obey_robots = false;
  c.politeness.backoff.error_budget = 1;
  c.politeness.backoff.park_s = 3600;
  c.fetch.max_body_bytes = 1024;
  c.fetch.compression = false;
  c.fetch.allowed_ranges = {"127.0.0.0/8"};
  c.output.directory = out.path().string();
  c.output.warc.enabled = true;
  validate_config(c);
  const nlohmann::json report = Crawler(settings_from_config(c)).run();
  server.stop();

  EXPECT_EQ(report["crawl"]["stopped_by"], "done");
  EXPECT_EQ(requests, (std::map<std::string, int>{{"/", 1}, {"/big1", 1}, {"/big2", 1}, {"/big3", 1}}));
  const auto records = read_page_records(out.path());
  for (const char* path : {"/", "/big1", "/big2", "/big3"}) {
    const nlohmann::json& r = records.at(server.url(path)).at(0);
    EXPECT_EQ(r["outcome"], "ok") << r.dump();
    EXPECT_EQ(r.value("truncated", false), true) << r.dump();
    EXPECT_EQ(r["bytes"], 1024) << r.dump();
  }
  std::string warc;
  for (const auto& file : std::filesystem::directory_iterator(out.path() / "warc")) {
    if (file.path().string().ends_with(".warc.gz")) warc += gunzip_members(file.path());
  }
  size_t truncated = 0;
  for (size_t at = warc.find("WARC-Truncated: length\r\n"); at != std::string::npos;
       at = warc.find("WARC-Truncated: length\r\n", at + 1)) {
    ++truncated;
  }
  EXPECT_EQ(truncated, 4u);
}

}  // namespace
}  // namespace bloomcrawl
