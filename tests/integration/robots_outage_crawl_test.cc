// robots.txt outages in a crawl (RFC 9309 2.3.1.4 and 2.5): a failing robots.txt makes its host
// wait with its queue, not lose it; only a robots.txt that fails past the give-up time (or a host
// that never answers) has its URLs recorded, each in pages.jsonl, as robots_unavailable or
// host_unreachable, and the report counts the same; a re-fetch that fails keeps the last good copy;
// a robots.txt over the fetch limit has its first part obeyed. Back-off and give-up times are cut
// to milliseconds so each crawl takes well under a few seconds.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/output/crawl_summary.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/fetch_loopback_server.h"
#include "tests/support/page_records.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

// The implicit noexcept move reaches nlohmann::json's noexcept move constructor, whose body clang-tidy reads
// as throwing (json_value's constructor holds a throw that no value type reaches).
struct OutageCrawl {  // NOLINT(bugprone-exception-escape): json's noexcept move cannot throw, see above
  nlohmann::json report;
  std::map<std::string, std::vector<nlohmann::json>> records;  // pages.jsonl by URL, in order

  std::string outcome(const std::string& url) const {
    auto it = records.find(url);
    if (it == records.end()) return "(no record)";
    if (it->second.size() != 1) return std::to_string(it->second.size()) + " records";
    return it->second[0]["outcome"].get<std::string>();
  }
  size_t count(const std::string& outcome) const {
    size_t n = 0;
    for (const auto& [url, recs] : records) {
      for (const auto& r : recs) n += r["outcome"] == outcome ? 1 : 0;
    }
    return n;
  }
};

CrawlConfig loopback_config(std::vector<std::string> seeds) {
  CrawlConfig c;
  c.seeds.urls = std::move(seeds);
  c.scope.allowed_hosts = {"127.0.0.1"};
  c.politeness.delay_ms = 0;
  c.fetch.allowed_ranges = {"127.0.0.0/8"};
  return c;
}

// Short back-off so a crawl with a few failures takes milliseconds.
CrawlerSettings quick(const CrawlConfig& c) {
  CrawlerSettings s = settings_from_config(c);
  s.robots.retry_initial = milliseconds(20);
  s.robots.retry_max = milliseconds(100);
  return s;
}

OutageCrawl run_crawl(CrawlerSettings s, const std::string& name) {
  const fs::path out = fs::temp_directory_path() / (name + "_" + std::to_string(getpid()));
  fs::remove_all(out);
  s.output_dir = out;
  OutageCrawl result;
  result.report = Crawler(std::move(s)).run();
  result.records = testing::read_page_records(out);
  fs::remove_all(out);
  return result;
}

void serve_page(testing::LoopbackHttpServer& site, const std::string& path, const std::string& html,
                std::atomic<int>* hits = nullptr) {
  site.server().Get(path, [html, hits](const httplib::Request&, httplib::Response& res) {
    if (hits) hits->fetch_add(1);
    res.set_content(html, "text/html");
  });
}

TEST(RobotsOutageCrawl, ARobotsTxtAnswering503ForAWhileHoldsTheHostThenEveryPageIsFetched) {
  testing::LoopbackHttpServer site;
  std::atomic<int> robots_hits{0};
  site.server().Get("/robots.txt", [&](const httplib::Request&, httplib::Response& res) {
    if (robots_hits.fetch_add(1) < 3) {
      res.status = 503;
      return;
    }
    res.set_content("User-agent: *\nDisallow: /private\n", "text/plain");
  });
  serve_page(site, "/", "<a href='/a'>a</a><a href='/b'>b</a><a href='/private'>p</a>");
  serve_page(site, "/a", "<a href='/c'>c</a>");
  serve_page(site, "/b", "b");
  serve_page(site, "/c", "c");
  serve_page(site, "/private", "no");
  site.start();
  CrawlConfig c = loopback_config({site.url("/")});
  const OutageCrawl crawl = run_crawl(quick(c), "robots_outage_503");
  site.stop();

  EXPECT_EQ(crawl.report["crawl"]["stopped_by"], "done");
  EXPECT_EQ(robots_hits.load(), 4);
  for (const char* path : {"/", "/a", "/b", "/c"}) EXPECT_EQ(crawl.outcome(site.url(path)), "ok") << path;
  EXPECT_EQ(crawl.outcome(site.url("/private")), "robots_disallowed");
  EXPECT_EQ(crawl.report["fetches"]["pages_fetched"], 4);
  EXPECT_EQ(crawl.report["fetches"]["robots_unavailable"], 0);
  EXPECT_EQ(crawl.report["fetches"]["robots_fetches"], 4);
}

TEST(RobotsOutageCrawl, ARobotsTxtFailingPastTheGiveUpTimeRecordsEachUrlAsRobotsUnavailable) {
  testing::LoopbackHttpServer site;
  std::atomic<int> robots_hits{0};
  std::atomic<int> page_hits{0};
  site.server().Get("/robots.txt", [&](const httplib::Request&, httplib::Response& res) {
    robots_hits.fetch_add(1);
    res.status = 500;
  });
  for (const char* path : {"/", "/x", "/y"}) serve_page(site, path, "<a href='/z'>z</a>", &page_hits);
  site.start();
  CrawlerSettings s = quick(loopback_config({site.url("/"), site.url("/x"), site.url("/y")}));
  s.robots.give_up = milliseconds(300);
  const OutageCrawl crawl = run_crawl(s, "robots_outage_give_up");
  site.stop();

  EXPECT_EQ(crawl.report["crawl"]["stopped_by"], "done");
  EXPECT_EQ(page_hits.load(), 0);
  // Tried with back-off (20, 40, 80, 100, 100 ms...) until the give-up time, not three times.
  EXPECT_GE(robots_hits.load(), 4);
  EXPECT_EQ(crawl.report["fetches"]["robots_fetches"], robots_hits.load());
  for (const char* path : {"/", "/x", "/y"}) {
    EXPECT_EQ(crawl.outcome(site.url(path)), "robots_unavailable") << path;
  }
  EXPECT_EQ(crawl.records.size(), 3u);
  EXPECT_EQ(crawl.report["fetches"]["robots_unavailable"], crawl.count("robots_unavailable"));
  EXPECT_EQ(crawl.report["fetches"]["robots_disallowed"], 0);
  EXPECT_EQ(crawl.report["fetches"]["pages_fetched"], 0);
}

// A port on 127.0.0.1 that refuses connections: bound to find a free one, then closed.
int refusing_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

TEST(RobotsOutageCrawl, HostsRefusingConnectionsAreGivenUpAfterTheirErrorBudgetAsHostUnreachable) {
  const int port = refusing_port();
  std::vector<std::string> seeds;
  for (int i = 1; i <= 200; ++i) {
    seeds.push_back("http://127.0.0." + std::to_string(i) + ":" + std::to_string(port) + "/page" + std::to_string(i));
  }
  CrawlConfig c = loopback_config(seeds);
  c.scope.allowed_hosts.clear();  // same_host: the seeds' hosts
  c.politeness.delay_ms = 10;
  c.politeness.backoff.error_budget = 3;
  // The outage give-up stays at its default hour: the crawl ends only because these hosts are
  // given up after their error budget.
  ASSERT_EQ(c.politeness.robots_unreachable_give_up_s, 3600);
  const OutageCrawl crawl = run_crawl(settings_from_config(c), "robots_outage_refused");

  EXPECT_EQ(crawl.report["crawl"]["stopped_by"], "done");
  EXPECT_EQ(crawl.report["fetches"]["robots_fetches"], 200 * 3);
  EXPECT_EQ(crawl.records.size(), 200u);
  for (const std::string& seed : seeds) EXPECT_EQ(crawl.outcome(seed), "host_unreachable") << seed;
  EXPECT_EQ(crawl.report["fetches"]["host_unreachable"], 200);
  EXPECT_EQ(crawl.report["fetches"]["robots_unavailable"], 0);
  // The summary printed at the end says where the URLs went, not just "0 pages".
  EXPECT_NE(crawl_summary(crawl.report).find("0 robots_unavailable, 200 host_unreachable"), std::string::npos)
      << crawl_summary(crawl.report);
}

TEST(RobotsOutageCrawl, AFailedRefetchKeepsTheLastGoodCopy) {
  testing::LoopbackHttpServer site;
  std::atomic<int> robots_hits{0};
  site.server().Get("/robots.txt", [&](const httplib::Request&, httplib::Response& res) {
    if (robots_hits.fetch_add(1) > 0) {
      res.status = 503;
      return;
    }
    res.set_content("User-agent: *\nDisallow: /private\n", "text/plain");
  });
  // A chain of pages that takes longer than the robots.txt's 1 s life; each links a private page.
  const int kPages = 8;
  for (int i = 0; i < kPages; ++i) {
    const std::string next = i + 1 < kPages ? "<a href='/p" + std::to_string(i + 1) + "'>n</a>" : "";
    serve_page(site, "/p" + std::to_string(i), next + "<a href='/private/" + std::to_string(i) + "'>x</a>");
  }
  site.start();
  CrawlConfig c = loopback_config({site.url("/p0")});
  c.politeness.delay_ms = 200;
  c.politeness.robots_ttl_s = 1;
  c.scope.max_depth = -1;
  CrawlerSettings s = quick(c);
  // Without the last good copy the failed re-fetch would give the host up at once.
  s.robots.give_up = milliseconds(1);
  const OutageCrawl crawl = run_crawl(s, "robots_outage_last_good");
  site.stop();

  EXPECT_EQ(crawl.report["crawl"]["stopped_by"], "done");
  EXPECT_GE(robots_hits.load(), 2);  // fetched, then re-fetched after 1 s and failed
  for (int i = 0; i < kPages; ++i) {
    EXPECT_EQ(crawl.outcome(site.url("/p" + std::to_string(i))), "ok") << i;
    EXPECT_EQ(crawl.outcome(site.url("/private/" + std::to_string(i))), "robots_disallowed") << i;
  }
  EXPECT_EQ(crawl.report["fetches"]["robots_unavailable"], 0);
}

TEST(RobotsOutageCrawl, ARobotsTxtOverTheFetchLimitHasItsFirstPartObeyed) {
  testing::LoopbackHttpServer site;
  std::string robots = "User-agent: *\nDisallow: /folder/\n";
  while (robots.size() < (10u << 20)) robots += "# filler that takes the file past the fetch limit\n";
  std::atomic<int> robots_hits{0};
  std::atomic<int> folder_hits{0};
  site.server().Get("/robots.txt", [&](const httplib::Request&, httplib::Response& res) {
    robots_hits.fetch_add(1);
    res.set_content(robots, "text/plain");
  });
  serve_page(site, "/", "<a href='/folder/a'>a</a><a href='/b'>b</a><a href='/folder'>f</a>");
  serve_page(site, "/folder/a", "a", &folder_hits);
  serve_page(site, "/b", "b");
  serve_page(site, "/folder", "not under /folder/");
  site.start();
  CrawlConfig c = loopback_config({site.url("/")});
  c.fetch.max_body_bytes = 1 << 20;
  c.fetch.compression = false;  // the test server would spend seconds compressing 10 MB
  const OutageCrawl crawl = run_crawl(quick(c), "robots_outage_big");
  site.stop();

  EXPECT_EQ(crawl.report["crawl"]["stopped_by"], "done");
  EXPECT_EQ(robots_hits.load(), 1);
  EXPECT_EQ(folder_hits.load(), 0);
  EXPECT_EQ(crawl.outcome(site.url("/folder/a")), "robots_disallowed");
  for (const char* path : {"/", "/b", "/folder"}) EXPECT_EQ(crawl.outcome(site.url(path)), "ok") << path;
}

}  // namespace
}  // namespace bloomcrawl
