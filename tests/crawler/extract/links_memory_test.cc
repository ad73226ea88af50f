// A crawl of 10 MiB HTML pages, flat (a link a line) and deep (500 nested elements a block), with
// the default parse cap and parse threads: the crawler process's peak RSS stays under 200 MiB, and
// each big page gives exactly the links in its first fetch.max_parse_bytes, recorded as truncated.
// The crawl runs as the built program, so its peak RSS is its own (wait4's ru_maxrss).
#include <sys/resource.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "tests/support/fetch_loopback_server.h"
#include "tests/support/page_records.h"
#include "tests/support/spawn.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

constexpr size_t kPageBytes = (10 << 20) - 4096;  // just under fetch.max_body_bytes
constexpr long kMaxPeakRssKib = 200 << 10;
// The bound is the Release build's: under a sanitizer the crawler's own memory is ASan's shadow and
// quarantine over it (424 MiB measured), so there the test checks the links and not the peak.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kRssMeasured = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kRssMeasured = false;
#else
constexpr bool kRssMeasured = true;
#endif
#else
constexpr bool kRssMeasured = true;
#endif

// Links point off-site (out of scope): found and counted, never fetched.
std::string anchor(size_t i) { return "<a href=\"http://off.site.test/" + std::to_string(i) + "\">x</a>"; }

std::string flat_page() {
  std::string page = "<!doctype html><html><body>\n";
  for (size_t i = 0; page.size() < kPageBytes; ++i) page += "<p>" + anchor(i) + "</p>\n";
  page.resize(kPageBytes);
  return page;
}

std::string deep_page() {
  std::string page = "<!doctype html><html><body>\n";
  for (size_t i = 0; page.size() < kPageBytes; ++i) {
    for (int d = 0; d < 500; ++d) page += "<div>";
    page += anchor(i);
    for (int d = 0; d < 500; ++d) page += "</div>";
    page += "\n";
  }
  page.resize(kPageBytes);
  return page;
}

// The anchors whose start tag ends within the first `cap` bytes: what the parse finds.
uint32_t anchors_within(const std::string& page, size_t cap) {
  uint32_t n = 0;
  for (size_t at = page.find("<a href="); at != std::string::npos; at = page.find("<a href=", at + 1)) {
    if (page.find('>', at) < cap) ++n;
  }
  return n;
}

TEST(LinksMemoryTest, TenMebibytePagesStayUnderTheRssBoundAndGiveTheLinksUpToTheCap) {
  const std::vector<std::string> pages = {flat_page(), deep_page(), flat_page(), deep_page(), flat_page(), deep_page()};
  testing::LoopbackHttpServer site;
  site.server().Get("/", [&](const httplib::Request&, httplib::Response& res) {
    std::string home = "<html><body>";
    for (size_t i = 0; i < pages.size(); ++i) home += "<a href=\"/big" + std::to_string(i) + "\">big</a>";
    res.set_content(home, "text/html; charset=utf-8");
  });
  site.server().Get(R"(/big(\d+))", [&](const httplib::Request& req, httplib::Response& res) {
    res.set_content(pages.at(std::stoul(req.matches[1].str())), "text/html; charset=utf-8");
  });
  site.start();

  const testing::TempDir dir;
  const fs::path out = dir.path() / "out";
  const fs::path config = dir.path() / "c.json";
  std::ofstream(config) << nlohmann::json{
      {"seeds", {{"urls", {site.url("/")}}}},
      {"scope", {{"allowed_hosts", {"127.0.0.1"}}}},
      {"politeness", {{"delay_ms", 0}}},
      {"fetch",
       {{"allowed_ranges", {"127.0.0.0/8"}},
        {"max_links_per_page", 1000000},
        // No Accept-Encoding: cpp-httplib would brotli each 10 MiB page at quality 11 (minutes).
        {"compression", false}}},
      // Three pages are the same bytes: each is to be parsed, not skipped as a duplicate.
      {"content_seen", {{"digest", false}}},
      {"output", {{"directory", out.string()}}}};
  const pid_t pid = testing::spawn_to_files({BLOOMCRAWL_BIN, "crawl", "--config", config.string()},
                                            (dir.path() / "stdout").string(), (dir.path() / "stderr").string());
  ASSERT_GT(pid, 0);
  int status = 0;
  rusage usage{};
  ASSERT_EQ(wait4(pid, &status, 0, &usage), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  if (kRssMeasured) {
    EXPECT_LT(usage.ru_maxrss, kMaxPeakRssKib) << "peak RSS " << usage.ru_maxrss << " KiB";
  }

  const size_t cap = CrawlConfig{}.fetch.max_parse_bytes;
  const auto records = testing::read_page_records(out);
  for (size_t i = 0; i < pages.size(); ++i) {
    const auto found = records.find(site.url("/big" + std::to_string(i)));
    ASSERT_NE(found, records.end()) << i;
    const nlohmann::json& r = found->second.back();
    EXPECT_EQ(r.value("links_found", 0u), anchors_within(pages[i], cap)) << r.dump();
    EXPECT_EQ(r.value("links_truncated", false), true) << r.dump();
  }
  EXPECT_FALSE(records.at(site.url("/")).back().contains("links_truncated"));
}

}  // namespace
}  // namespace bloomcrawl
