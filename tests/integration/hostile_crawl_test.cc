// A crawl whose site links to every kind of hostile server behaviour: the crawl goes on to the
// end, every hostile URL is recorded in pages.jsonl with a clear outcome, memory stays bounded
// and nothing hangs.
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/fetch_loopback_server.h"
#include "tests/support/hostile_server.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using testing::HostileServer;

TEST(HostileCrawl, EveryHostileUrlEndsWithAReasonAndTheCrawlGoesOn) {
  HostileServer hostile;
  const std::vector<std::string> paths = {
      HostileServer::kSlowDrip,          HostileServer::kStall,           HostileServer::kEndless,
      HostileServer::kRedirectSelf,      HostileServer::kRedirectA,       HostileServer::kGzipBomb,
      HostileServer::kHugeHeaders,       HostileServer::kHugeHeaderLine,  HostileServer::kBrokenChunked,
      HostileServer::kResetMidBody,      HostileServer::kBinaryAsHtml,    HostileServer::kInvalidUtf8,
      HostileServer::kDeepNesting,       HostileServer::kLyingLengthLong, HostileServer::kLyingLengthShort,
      HostileServer::kHugeContentLength, HostileServer::kNoResponse,      HostileServer::kNotHttp};
  testing::LoopbackHttpServer site;
  std::string index = "<html><body>";
  for (const std::string& p : paths) index += "<a href='" + hostile.url(p) + "'>x</a>";
  index += "<a href='/fine'>fine</a><a href='/parser-assert'>assert</a></body></html>";
  site.server().Get("/", [&](const httplib::Request&, httplib::Response& res) { res.set_content(index, "text/html"); });
  site.server().Get("/fine", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("<html><a href='/'>home</a></html>", "text/html");
  });
  // A page on which Debian's Gumbo asserts (found by links_fuzz): one failed page, not a dead crawl.
  std::ifstream asserting(
      fs::path(BLOOMCRAWL_SOURCE_DIR) / "tests/fuzz/corpus/links_fuzz/gumbo-assert-node_qualified_tag_is",
      std::ios::binary);
  const std::string parser_assert((std::istreambuf_iterator<char>(asserting)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(parser_assert.empty());
  site.server().Get("/parser-assert", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(parser_assert, "text/html");
  });
  site.start();

  const fs::path out = fs::temp_directory_path() / ("hostile_crawl_" + std::to_string(getpid()));
  fs::remove_all(out);
  CrawlConfig c;
  c.seeds.urls = {site.url("/")};
  c.scope.allowed_hosts = {"127.0.0.1"};
  c.politeness.delay_ms = 0;
  c.politeness.concurrency_per_host = 8;
  c.politeness.obey_robots = false;  // the hostile server answers robots.txt hostilely too
  c.fetch.allowed_ranges = {"127.0.0.0/8"};
  c.fetch.connect_timeout_ms = 2000;
  c.fetch.idle_timeout_ms = 2000;
  c.fetch.total_timeout_ms = 4000;
  c.fetch.max_body_bytes = 1 << 20;
  c.fetch.max_decoded_bytes = 4 << 20;
  c.output.directory = out.string();
  nlohmann::json report = Crawler(settings_from_config(c)).run();
  site.stop();
  hostile.stop();

  EXPECT_EQ(report["crawl"]["stopped_by"], "done");
  std::map<std::string, nlohmann::json> records;
  std::ifstream in(out / "pages.jsonl");
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    records[j["url"].get<std::string>()] = j;
  }
  EXPECT_EQ(records[site.url("/fine")]["status"], 200);
  EXPECT_EQ(records[site.url("/parser-assert")]["status"], 200);
  EXPECT_NE(records[site.url("/parser-assert")].value("error", "").find("links not extracted: HTML parser assertion"),
            std::string::npos)
      << records[site.url("/parser-assert")].dump();
  EXPECT_EQ(report["fetches"]["html_parse_failures"], 1);
  for (const std::string& p : paths) {
    ASSERT_TRUE(records.count(hostile.url(p))) << p << " has no record";
    const nlohmann::json& r = records[hostile.url(p)];
    const bool failed = r["outcome"] != "ok";
    // Either a clear failure with its reason, or a complete response (a redirect, a page whose
    // junk was parsed safely).
    if (failed) {
      EXPECT_FALSE(r.value("error", "").empty()) << p << ": " << r.dump();
    } else {
      EXPECT_GT(r["status"].get<long>(), 0) << p;
    }
  }
  // config/README.md fetch.max_body_bytes / max_decoded_bytes: cut at the limit, kept as a page.
  for (const char* cut : {HostileServer::kGzipBomb, HostileServer::kEndless}) {
    EXPECT_EQ(records[hostile.url(cut)]["outcome"], "ok") << cut;
    EXPECT_EQ(records[hostile.url(cut)].value("truncated", false), true) << cut;
  }
  EXPECT_NE(records[hostile.url(HostileServer::kSlowDrip)]["outcome"], "ok");
  // The bomb inflates to 1 GiB and the endless body never ends: neither may be held in memory.
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  EXPECT_LT(usage.ru_maxrss, 512L * 1024) << "peak RSS in KiB";
  fs::remove_all(out);
}

}  // namespace
}  // namespace bloomcrawl
