// The change-rate estimator in the crawl (docs/recrawl.md, rule 4): a loopback site revisited in
// rounds of `crawl --resume` with second-scale intervals, each round started when its pages fall
// due. Each revisit joins the URL record's visits; from the third on, a page's interval is 1/λ of
// Cho and Garcia-Molina's estimate over them: the maximum for a page that never changed (the fixed
// factors would have kept it at a second), the estimate's mean time between changes for one that
// changes at every other visit.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/persist/crawl_checkpoint.h"
#include "crawler/pipeline/crawler.h"
#include "crawler/recrawl/change_rate.h"
#include "crawler/recrawl/recrawl_schedule.h"
#include "tests/support/fetch_loopback_server.h"
#include "tests/support/recrawl_crawl.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_web_config.h"

namespace bloomcrawl {
namespace {

constexpr int64_t kMaxIntervalS = 3600;

// "/" links /static (an ETag it always confirms: 304) and /flip (no validator; its body changes at
// every other request: A, A, B, B, C, ...).
class EstimatorSite {
 public:
  EstimatorSite() {
    server_.server().Get(R"(/.*)", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard lock(mu_);
      if (req.path == "/robots.txt") {
        res.status = 404;
      } else if (req.path == "/static") {
        res.set_header("ETag", "\"s1\"");
        if (req.get_header_value("If-None-Match") == "\"s1\"") {
          res.status = 304;
        } else {
          res.set_content("<html><body>static</body></html>", "text/html");
        }
      } else if (req.path == "/flip") {
        res.set_content("<html><body>version " + std::to_string(flip_requests_++ / 2) + "</body></html>", "text/html");
      } else {
        res.set_content("<html><body><a href='/static'>s</a><a href='/flip'>f</a></body></html>", "text/html");
      }
    });
    server_.start();
  }
  std::string url(const std::string& path) const { return server_.url(path); }

 private:
  testing::LoopbackHttpServer server_;
  std::mutex mu_;
  int flip_requests_ = 0;
};

TEST(RevisitEstimatorTest, FromTheThirdRevisitTheIntervalIsTheEstimatorsMeanTimeBetweenChanges) {
  EstimatorSite site;
  const testing::TempDir dir;
  CrawlConfig c = testing::recrawl_crawl_config(site.url("/"), dir.path());
  c.recrawl.min_interval_s = 1;
  c.recrawl.default_interval_s = 1;
  c.recrawl.max_interval_s = kMaxIntervalS;
  const CrawlerSettings settings = testing::checkpointed_settings(c);
  const auto records = [&] { return testing::checkpoint_url_records(dir.path() / "ckpt"); };
  const auto interval_s = testing::scheduled_interval_s;

  ASSERT_EQ(Crawler(settings).run()["crawl"]["stopped_by"], "done");
  std::map<std::string, UrlRecord> now = records();
  // Three revisit rounds, each a resume once both pages are due (the schedule's own time).
  for (int round = 1; round <= 3; ++round) {
    const int64_t due_ms = std::max(now[site.url("/static")].next_fetch_ms, now[site.url("/flip")].next_fetch_ms);
    std::this_thread::sleep_until(std::chrono::system_clock::time_point(std::chrono::milliseconds(due_ms)));
    const nlohmann::json report =
        Crawler(settings, std::make_unique<CrawlCheckpoint>(load_crawl_checkpoint(dir.path() / "ckpt"))).run();
    ASSERT_EQ(report["crawl"]["stopped_by"], "done") << report["crawl"].dump();
    now = records();
    const UrlRecord& flip = now[site.url("/flip")];
    ASSERT_EQ(flip.visits.size(), size_t(round)) << "round " << round << ": one visit per revisit";
    if (round < 3) {  // the fixed factors on one second: 1.4 and 0.8 both round to it
      EXPECT_EQ(interval_s(flip), 1) << round;
      EXPECT_EQ(interval_s(now[site.url("/static")]), 1) << round;
    }
  }

  const UrlRecord& statics = now[site.url("/static")];
  ASSERT_EQ(statics.visits.size(), 3u);
  for (const RecordVisit& v : statics.visits) {
    EXPECT_FALSE(v.changed);
    EXPECT_GE(v.interval_s, 1);
  }
  EXPECT_EQ(statics.reason, "not_modified");
  EXPECT_EQ(interval_s(statics), kMaxIntervalS) << "three visits, no change: the maximum";

  const UrlRecord& flip = now[site.url("/flip")];
  std::vector<recrawl::Visit> history;
  for (size_t i = 0; i < flip.visits.size(); ++i) {
    // Bodies A, A, B, B: the first revisit finds it unchanged, the second changed, the third not.
    EXPECT_EQ(flip.visits[i].changed, i == 1) << i;
    history.push_back({flip.visits[i].interval_s, flip.visits[i].changed});
  }
  const double mean_change_s = 1 / recrawl::estimate_change_rate(history);
  EXPECT_EQ(interval_s(flip), std::llround(mean_change_s)) << "1/λ over the visits";
  EXPECT_GT(interval_s(flip), 1) << "longer than a second: one change in three visits";
}

}  // namespace
}  // namespace bloomcrawl
