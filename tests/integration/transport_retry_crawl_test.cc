// A fetch that got no response at all (the connection closed before a byte, or refused) is fetched
// again fetch.transport_retries times; the page behind a one-off lost connection is not lost, the
// retries are counted in report.json and not written to pages.jsonl; a reset after part of a
// response is not fetched again (docs/design.md).
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/hostile_server.h"
#include "tests/support/loopback_port.h"
#include "tests/support/page_records.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

using testing::HostileServer;

// The implicit noexcept move reaches nlohmann::json's noexcept move constructor, whose body clang-tidy reads
// as throwing (json_value's constructor holds a throw that no value type reaches).
struct RetryCrawl {  // NOLINT(bugprone-exception-escape): json's noexcept move cannot throw, see above
  nlohmann::json report;
  std::map<std::string, std::vector<nlohmann::json>> records;  // by URL, in order
  std::string refused_url;                                     // on a port nothing listens on

  // The outcome of `url`'s one record ("ok" with its status), or how many records it has instead.
  std::string outcome_of(const std::string& url) const {
    const auto found = records.find(url);
    if (found == records.end() || found->second.size() != 1) {
      return std::to_string(found == records.end() ? 0 : found->second.size()) + " records";
    }
    const nlohmann::json& r = found->second[0];
    return r["outcome"] == "ok" ? "ok " + r["status"].dump() : r["outcome"].get<std::string>();
  }
};

// Seeds: a path closed without a byte the first time only, one closed so every time, one reset
// after part of its body, and a port that refuses connections.
RetryCrawl crawl_unanswered(HostileServer& hostile, int transport_retries) {
  const testing::TempDir out;
  RetryCrawl result;
  result.refused_url = "http://127.0.0.1:" + std::to_string(testing::unused_loopback_port()) + "/refused";
  CrawlConfig c;
  c.seeds.urls = {hostile.url(HostileServer::kNoResponseOnce), hostile.url(HostileServer::kNoResponse),
                  hostile.url(HostileServer::kResetMidBody), result.refused_url};
  c.scope.allowed_hosts = {"127.0.0.1"};
  c.politeness.delay_ms = 0;
  c.politeness.obey_robots = false;  // the hostile server answers robots.txt with a 404 anyway
  c.fetch.allowed_ranges = {"127.0.0.0/8"};
  c.fetch.transport_retries = transport_retries;
  c.output.directory = out.path().string();
  result.report = Crawler(settings_from_config(c)).run();
  hostile.stop();
  result.records = testing::read_page_records(out.path());
  return result;
}

TEST(TransportRetryCrawl, AConnectionLostBeforeAnyResponseIsFetchedOnceMore) {
  ASSERT_EQ(CrawlConfig{}.fetch.transport_retries, 1);  // the default this test describes
  HostileServer hostile;
  const RetryCrawl c = crawl_unanswered(hostile, 1);
  EXPECT_EQ(c.report["crawl"]["stopped_by"], "done");
  // Lost once, then answered: the page is the 200, its lost attempt has no record.
  EXPECT_EQ(hostile.requests(HostileServer::kNoResponseOnce), 2u);
  EXPECT_EQ(c.outcome_of(hostile.url(HostileServer::kNoResponseOnce)), "ok 200");
  // Lost every time: the first fetch and one retry; the last attempt is the record.
  EXPECT_EQ(hostile.requests(HostileServer::kNoResponse), 2u);
  EXPECT_EQ(c.outcome_of(hostile.url(HostileServer::kNoResponse)), "connection_reset");
  // Refused: fetched again as well (counted below), then recorded.
  EXPECT_EQ(c.outcome_of(c.refused_url), "connect_failed");
  // Reset after the head and part of the body: the server answered, so no second request.
  EXPECT_EQ(hostile.requests(HostileServer::kResetMidBody), 1u);
  EXPECT_EQ(c.outcome_of(hostile.url(HostileServer::kResetMidBody)), "connection_reset");
  EXPECT_EQ(c.report["fetches"]["retried_after_transport_error"], 3);  // once, never, refused
  EXPECT_EQ(c.report["fetches"]["retried_after_backoff"], 0);
  EXPECT_EQ(c.report["fetches"]["pages_fetched"], 1);
  EXPECT_EQ(c.report["fetches"]["failures"], 3);  // one per URL: the retried attempts are not failures
}

TEST(TransportRetryCrawl, NoRetryWhenTransportRetriesIsZero) {
  HostileServer hostile;
  const RetryCrawl c = crawl_unanswered(hostile, 0);
  EXPECT_EQ(c.report["crawl"]["stopped_by"], "done");
  // Every URL asked once, every failure its record at once, the one-off loss included.
  for (const char* path : {HostileServer::kNoResponseOnce, HostileServer::kNoResponse, HostileServer::kResetMidBody}) {
    EXPECT_EQ(hostile.requests(path), 1u) << path;
    EXPECT_EQ(c.outcome_of(hostile.url(path)), "connection_reset") << path;
  }
  EXPECT_EQ(c.outcome_of(c.refused_url), "connect_failed");
  EXPECT_EQ(c.report["fetches"]["retried_after_transport_error"], 0);
  EXPECT_EQ(c.report["fetches"]["failures"], 4);
}

TEST(TransportRetryCrawl, ConfigReachesTheCrawler) {
  CrawlConfig c;
  c.seeds.urls = {"http://127.0.0.1/"};
  EXPECT_EQ(settings_from_config(c).transport_retries, 1u);
  c.fetch.transport_retries = 4;
  EXPECT_EQ(settings_from_config(c).transport_retries, 4u);
}

}  // namespace
}  // namespace bloomcrawl
