// A host whose name does not resolve, in a crawl: its URLs are never lost and the crawl ends. With
// robots.txt obeyed the host is given up after its error budget of robots.txt tries and each URL
// is recorded as host_unreachable; without, each page fails as dns_failed, the host parking after
// its error budget (park_s) like a host refusing connections, and every URL ends as one record.
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "tests/support/crawl_run.h"
#include "tests/support/fetch_loopback_server.h"

namespace bloomcrawl {
namespace {

constexpr const char* kDeadHost = "bloomcrawl-no-such-name.invalid";
constexpr int kDeadUrls = 5;

struct DnsFailureCrawl : ::testing::Test {
  void SetUp() override {
    site.server().Get("/", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("<html><body>live</body></html>", "text/html");
    });
    site.start();
    config.seeds.urls = {site.url("/")};
    for (int i = 0; i < kDeadUrls; ++i) {
      dead_urls.push_back("http://" + std::string(kDeadHost) + "/page" + std::to_string(i));
      config.seeds.urls.push_back(dead_urls.back());
    }
    config.scope.allowed_hosts = {"127.0.0.1", kDeadHost};
    config.politeness.delay_ms = 10;
    config.politeness.backoff.error_budget = 2;
    config.politeness.backoff.park_s = 1;
    config.fetch.allowed_ranges = {"127.0.0.0/8"};
    config.fetch.max_resolves_in_flight = 1;
  }

  // Runs the crawl; pages.jsonl by URL.
  std::map<std::string, std::vector<nlohmann::json>> crawl() {
    testing::CrawlRun run = testing::run_crawl_in_temp_dir(config);
    report = std::move(run.report);
    return std::move(run.records);
  }

  testing::LoopbackHttpServer site;
  CrawlConfig config;
  std::vector<std::string> dead_urls;
  nlohmann::json report;
};

TEST_F(DnsFailureCrawl, WithRobotsTheHostIsGivenUpAfterItsErrorBudgetAndEveryUrlRecorded) {
  const auto records = crawl();
  EXPECT_EQ(report["crawl"]["stopped_by"], "done");
  ASSERT_EQ(records.count(site.url("/")), 1u);
  EXPECT_EQ(records.at(site.url("/"))[0]["outcome"], "ok");
  for (const std::string& url : dead_urls) {
    ASSERT_EQ(records.count(url), 1u) << url;
    ASSERT_EQ(records.at(url).size(), 1u) << url;
    EXPECT_EQ(records.at(url)[0]["outcome"], "host_unreachable") << url;
  }
  EXPECT_EQ(report["fetches"]["host_unreachable"], kDeadUrls);
  // One robots.txt for the live host, the error budget's worth for the dead one.
  EXPECT_EQ(report["fetches"]["robots_fetches"], 1 + config.politeness.backoff.error_budget);
}

TEST_F(DnsFailureCrawl, WithoutRobotsEachPageFailsAsDnsFailedAndTheCrawlEnds) {
  config.politeness.obey_robots = false;
  const auto records = crawl();
  EXPECT_EQ(report["crawl"]["stopped_by"], "done");
  for (const std::string& url : dead_urls) {
    ASSERT_EQ(records.count(url), 1u) << url;
    ASSERT_EQ(records.at(url).size(), 1u) << url;
    EXPECT_EQ(records.at(url)[0]["outcome"], "dns_failed") << url;
    EXPECT_NE(records.at(url)[0]["error"].get<std::string>().find(kDeadHost), std::string::npos)
        << records.at(url)[0]["error"];
  }
  EXPECT_EQ(report["fetches"]["failures_by_outcome"]["dns_failed"], kDeadUrls);
}

}  // namespace
}  // namespace bloomcrawl
