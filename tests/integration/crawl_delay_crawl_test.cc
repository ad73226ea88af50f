// robots.txt Crawl-delay in a crawl (issue 16): one request at a time to the host, starts at least
// the delay apart, whatever politeness.concurrency_per_host says. Judged from the server's side.
#include <chrono>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/fetch_loopback_server.h"
#include "tests/support/loopback_crawl.h"
#include "tests/support/request_timeline.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

using std::chrono::milliseconds;

TEST(CrawlDelayCrawl, OneRequestInFlightAndStartsAtLeastTheDelayApart) {
  constexpr milliseconds kCrawlDelay{200};
  constexpr int kPages = 6;
  testing::LoopbackHttpServer site;
  testing::RequestTimeline timeline;
  site.server().Get("/robots.txt", timeline.stamped([](const httplib::Request&, httplib::Response& res) {
    res.set_content("User-agent: *\nCrawl-delay: 0.2\n", "text/plain");
  }));
  testing::serve_page_list(site, timeline, kPages, milliseconds(30));
  site.start();
  const nlohmann::json report = testing::crawl_loopback_site(site, milliseconds(0), [](CrawlConfig& c) {
    c.politeness.concurrency_per_host = 4;  // issue 16: four requests every Crawl-delay
  });

  EXPECT_EQ(report["crawl"]["stopped_by"], "done");
  const auto requests = timeline.requests();
  ASSERT_EQ(requests.size(), 2u + kPages);  // robots.txt, the home page, its pages
  EXPECT_EQ(testing::RequestTimeline::max_in_flight(requests), 1u);
  EXPECT_GE(testing::RequestTimeline::min_start_gap(requests), kCrawlDelay);
}

}  // namespace
}  // namespace bloomcrawl
