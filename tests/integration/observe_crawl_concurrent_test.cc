// The live view during a real crawl of the test web: /metrics scraped twice (counters rise, promtool
// accepts the exposition), /status.json, the status page as headless Chromium renders it (its
// figures present and changing between two loads), and `bloomcrawl crawl --metrics`.
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/observe/observe_server.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/promtool.h"
#include "tests/support/spawn.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_web.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A test web slow enough (latency per response, one request per host at a time) that the crawl is
// still running while the test looks, and large enough that it does not run out first.
testweb::TestWebOptions slow_web() {
  testweb::TestWebOptions o;
  o.pages_per_host = 400;
  o.trap = false;
  o.response_delay = std::chrono::milliseconds(40);
  return o;
}

CrawlConfig config_for(const testweb::TestWeb& web, const fs::path& out) {
  CrawlConfig c;
  c.seeds.urls = {web.seed_url()};
  c.scope.allowed_hosts = web.options().hosts;
  c.politeness.delay_ms = 0;
  c.politeness.concurrency_per_host = 1;
  c.fetch.allowed_ranges = {"127.0.0.0/8"};
  c.output.directory = out.string();
  return c;
}

std::string get(uint16_t port, const std::string& path) {
  httplib::Client client("127.0.0.1", port);
  auto res = client.Get(path);
  EXPECT_TRUE(res) << path;
  if (!res) return "";
  EXPECT_EQ(res->status, 200) << path;
  return res->body;
}

// The value of an unlabelled sample in an exposition, or nullopt.
std::optional<double> sample(const std::string& exposition, const std::string& name) {
  std::istringstream in(exposition);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(name + " ")) return std::stod(line.substr(name.size() + 1));
  }
  return std::nullopt;
}

// Runs a crawl on its own thread; stops it and joins when the test is done looking.
class RunningCrawl {
 public:
  explicit RunningCrawl(const CrawlerSettings& s) : crawler_(s) {
    thread_ = std::thread([this] { report_ = crawler_.run(); });
  }
  ~RunningCrawl() {
    crawler_.stop();
    thread_.join();
  }
  Crawler& crawler() { return crawler_; }

 private:
  Crawler crawler_;
  std::thread thread_;
  nlohmann::json report_;
};

// Scrapes until `name` exceeds `above` (the crawl moving on), or 20 s have passed.
std::string scrape_until_above(uint16_t port, const std::string& name, double above) {
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  std::string text;
  do {
    text = get(port, "/metrics");
    if (sample(text, name).value_or(0) > above) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // polling the crawl, not ordering threads
  } while (Clock::now() < deadline);
  return text;
}

TEST(ObserveCrawlTest, MetricsRiseDuringACrawlAndPassPromtool) {
  testweb::TestWeb web(slow_web());
  web.start();
  const testing::TempDir out;
  CrawlerSettings settings = settings_from_config(config_for(web, out.path()));
  settings.checkpoint.directory = out.path() / "checkpoint";
  RunningCrawl crawl(settings);
  ObserveServer server(ListenAddress{"127.0.0.1", 0}, [&] { return crawl.crawler().live_report(); });

  const std::string first = scrape_until_above(server.port(), "bloomcrawl_links_found_total", 0);
  const double found = sample(first, "bloomcrawl_links_found_total").value_or(0);
  ASSERT_GT(found, 0) << first;
  const std::string second = scrape_until_above(server.port(), "bloomcrawl_links_found_total", found);
  EXPECT_GT(sample(second, "bloomcrawl_links_found_total").value_or(0), found);
  EXPECT_GE(sample(second, "bloomcrawl_fetch_duration_seconds_count").value_or(0),
            sample(first, "bloomcrawl_fetch_duration_seconds_count").value_or(0));
  EXPECT_GT(sample(second, "bloomcrawl_fetch_duration_seconds_count").value_or(0), 0);
  EXPECT_GT(sample(second, "bloomcrawl_seen_filter_keys").value_or(0), 0);
  EXPECT_TRUE(sample(second, "bloomcrawl_frontier_queued_urls").has_value());
  EXPECT_TRUE(sample(second, "bloomcrawl_checkpoints_total").has_value());  // the first generation, at start
  EXPECT_NE(second.find("bloomcrawl_pages_fetched_total{status_class=\"2xx\"}"), std::string::npos);

  const nlohmann::json status = nlohmann::json::parse(get(server.port(), "/status.json"));
  EXPECT_GT(status["progress"]["pages_fetched"].get<uint64_t>(), 0u);
  EXPECT_GT(status["filter"]["keys"].get<uint64_t>(), 0u);
  EXPECT_FALSE(status["history"]["time"].empty());

  if (!testing::have_promtool()) GTEST_SKIP() << "promtool (Debian package prometheus) is not installed";
  for (const std::string& exposition : {first, second}) {
    const testing::PromtoolResult r = testing::promtool_check(exposition);
    EXPECT_EQ(r.exit_code, 0) << r.output;
  }
}

// The page as headless Chromium renders it after its script has fetched /status.json; nullopt
// when Chromium is not installed.
std::optional<std::string> rendered_page(const std::string& url) {
  const char* chromium = "/usr/bin/chromium";
  if (::access(chromium, X_OK) != 0) return std::nullopt;
  const testing::TempDir profile;
  const fs::path dom = profile.path() / "dom.html";
  // Virtual time runs only while no request is pending, so the budget ends after the page's first
  // fetches have been answered and rendered.
  const pid_t pid = testing::spawn_to_files(
      {chromium, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + profile.path().string(),
       "--virtual-time-budget=3000", "--dump-dom", url},
      dom.string(), (profile.path() / "stderr").string());
  EXPECT_EQ(testing::wait_exit_code(pid), 0);
  std::stringstream text;
  text << std::ifstream(dom).rdbuf();
  return text.str();
}

// The number in <b id="ID">1,234</b> (commas dropped), or nullopt.
std::optional<double> figure(const std::string& dom, const std::string& id) {
  std::smatch m;
  if (!std::regex_search(dom, m, std::regex("id=\"" + id + "\">([0-9][0-9,.]*)<"))) return std::nullopt;
  std::string digits = m[1];
  std::erase(digits, ',');
  return std::stod(digits);
}

TEST(ObserveCrawlTest, ChromiumRendersTheStatusPageWithChangingFigures) {
  testweb::TestWeb web(slow_web());
  web.start();
  const testing::TempDir out;
  RunningCrawl crawl(settings_from_config(config_for(web, out.path())));
  ObserveServer server(ListenAddress{"127.0.0.1", 0}, [&] { return crawl.crawler().live_report(); });

  const std::optional<std::string> first = rendered_page(server.url());
  if (!first) GTEST_SKIP() << "chromium is not installed";
  const std::optional<double> pages = figure(*first, "pages-fetched");
  ASSERT_TRUE(pages.has_value()) << *first;
  for (const char* id : {"queued", "hosts", "in-flight", "filter-keys", "duplicates-avoided", "revisit-changed",
                         "revisit-mb-saved", "revisit-due-within-hour", "content-near-duplicates",
                         "content-fetches-saved-by-rules", "content-mb-warc-saved"})
    EXPECT_TRUE(figure(*first, id).has_value()) << id << " in\n" << *first;
  EXPECT_NE(first->find("id=\"status-2xx\""), std::string::npos);  // the status mix's legend
  EXPECT_NE(first->find("<canvas id=\"chart-rate\""), std::string::npos);

  scrape_until_above(server.port(), "bloomcrawl_pages_fetched_total{status_class=\"2xx\"}", *pages);
  const std::optional<std::string> second = rendered_page(server.url());
  ASSERT_TRUE(second.has_value());
  EXPECT_GT(figure(*second, "pages-fetched").value_or(0), *pages) << *second;
  EXPECT_NE(second->find("<span id=\"error\"></span>"), std::string::npos) << *second;  // no "not updating"
}

TEST(ObserveCrawlTest, CrawlCommandServesTheLiveViewOnItsMetricsFlag) {
  testweb::TestWeb web(slow_web());
  web.start();
  const testing::TempDir dir;
  const fs::path config = dir.path() / "c.json";
  const fs::path err = dir.path() / "stderr";
  std::ofstream(config) << nlohmann::json{{"seeds", {{"urls", {web.seed_url()}}}},
                                          {"scope", {{"allowed_hosts", web.options().hosts}}},
                                          {"politeness", {{"delay_ms", 0}, {"concurrency_per_host", 1}}},
                                          {"fetch", {{"allowed_ranges", {"127.0.0.0/8"}}}},
                                          {"output", {{"directory", (dir.path() / "out").string()}}}};
  const pid_t pid = testing::spawn_to_files(
      {BLOOMCRAWL_BIN, "crawl", "--config", config.string(), "--metrics", "127.0.0.1:0", "--progress", "never"},
      (dir.path() / "stdout").string(), err.string());
  ASSERT_GT(pid, 0);
  // The log names the port taken.
  std::smatch m;
  const std::regex logged(R"(status page at http://127\.0\.0\.1:([0-9]+)/)");
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  std::string log;
  while (Clock::now() < deadline) {
    std::stringstream text;
    text << std::ifstream(err).rdbuf();
    log = text.str();
    if (std::regex_search(log, m, logged)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling the child's log
  }
  ASSERT_TRUE(m.size() == 2) << log;
  const uint16_t port = uint16_t(std::stoi(m[1]));
  EXPECT_NE(get(port, "/metrics").find("bloomcrawl_links_found_total"), std::string::npos);
  EXPECT_NE(get(port, "/").find("<canvas"), std::string::npos);
  ::kill(pid, SIGINT);
  EXPECT_EQ(testing::wait_exit_code(pid), 0);
}

}  // namespace
}  // namespace bloomcrawl
