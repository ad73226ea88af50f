// robots.txt requests obey the politeness of their host's key like pages (issue 16): under
// politeness.group_by "domain" the robots.txt files of many new subdomains go out within the
// group's concurrency and delay, and a Crawl-delay host's robots.txt re-fetch (its cache entry
// expired during the crawl) never runs beside one of its pages. Judged from the server's side,
// robots.txt requests included. The names sN.site.localhost reach the loopback server through
// libcurl, which resolves every *.localhost name to loopback itself (RFC 6761 6.3).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

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
using RobotsTimelineRequest = testing::RequestTimeline::Request;

bool is_robots_request(const RobotsTimelineRequest& r) { return r.path == "/robots.txt"; }

size_t count_robots_requests(const std::vector<RobotsTimelineRequest>& requests) {
  return size_t(std::count_if(requests.begin(), requests.end(), is_robots_request));
}

// s0's home page links the home pages of `count` subdomains of site.localhost; each answers its
// robots.txt after a moment, so robots.txt requests sent together overlap at the server.
class ManySubdomains {
 public:
  explicit ManySubdomains(int count) : count_(count) {
    // A thread per subdomain's kept-alive connection and more: with cpp-httplib's default pool
    // a new connection would wait for an idle one to time out.
    site_.server().new_task_queue = [count] { return new httplib::ThreadPool(size_t(count) + 8); };
    // The server's latency, not a synchronisation: the test waits for the crawl's end and reads
    // the server's timeline; the latency only gives requests sent together time to overlap there.
    site_.server().Get("/robots.txt", timeline_.stamped([](const httplib::Request&, httplib::Response& res) {
      std::this_thread::sleep_for(milliseconds(20));
      res.set_content("User-agent: *\nDisallow: /private\n", "text/plain");
    }));
    site_.server().Get("/", timeline_.stamped([this](const httplib::Request& req, httplib::Response& res) {
      std::string links;
      if (req.get_header_value("Host").starts_with("s0.")) {
        for (int i = 0; i < count_; ++i) links += "<a href='" + home(i) + "'>s</a>";
      }
      res.set_content(links, "text/html");
    }));
    site_.start();
  }

  std::string home(int i) const {
    const std::string url = site_.url("");
    return "http://s" + std::to_string(i) + ".site.localhost:" + url.substr(url.rfind(':') + 1) + "/";
  }

  nlohmann::json crawl(int concurrency, milliseconds delay) {
    return testing::crawl_subdomains(site_, home(0), "domain", concurrency, delay);
  }

  std::vector<RobotsTimelineRequest> requests() const { return timeline_.requests(); }

 private:
  int count_;
  testing::LoopbackHttpServer site_;
  testing::RequestTimeline timeline_;
};

constexpr int kManySubdomains = 12;

TEST(RobotsPolitenessCrawl, RobotsTxtOfManySubdomainsStaysWithinTheGroupsConcurrency) {
  ManySubdomains site(kManySubdomains);
  const nlohmann::json report = site.crawl(2, milliseconds(0));
  EXPECT_EQ(report["crawl"]["stopped_by"], "done");
  const std::vector<RobotsTimelineRequest> requests = site.requests();
  EXPECT_EQ(count_robots_requests(requests), size_t(kManySubdomains));
  ASSERT_EQ(requests.size(), 2u * kManySubdomains);  // each subdomain's robots.txt and home page
  EXPECT_LE(testing::RequestTimeline::max_in_flight(requests), 2u);
}

TEST(RobotsPolitenessCrawl, RobotsTxtOfManySubdomainsStartsTheGroupsDelayApart) {
  constexpr milliseconds kDelay{40};
  ManySubdomains site(kManySubdomains);
  const nlohmann::json report = site.crawl(1, kDelay);
  EXPECT_EQ(report["crawl"]["stopped_by"], "done");
  const std::vector<RobotsTimelineRequest> requests = site.requests();
  EXPECT_EQ(count_robots_requests(requests), size_t(kManySubdomains));
  ASSERT_EQ(requests.size(), 2u * kManySubdomains);
  EXPECT_EQ(testing::RequestTimeline::max_in_flight(requests), 1u);
  EXPECT_GE(testing::RequestTimeline::min_start_gap(requests), kDelay);
}

TEST(RobotsPolitenessCrawl, ACrawlDelayHostsRobotsTxtRefetchNeverRunsBesideAPage) {
  constexpr milliseconds kCrawlDelay{200};
  constexpr int kPages = 9;
  testing::LoopbackHttpServer site;
  testing::RequestTimeline timeline;
  // The first answer gives the Crawl-delay; every re-fetch fails, so the expired copy stays in
  // force and is fetched again after back-off while the pages go on (docs/robots.md).
  std::atomic<int> robots_answers{0};
  // Answers take the server 30 ms (latency, as for the pages): a re-fetch sent beside a page
  // overlaps it in the server's timeline.
  site.server().Get("/robots.txt", timeline.stamped([&](const httplib::Request&, httplib::Response& res) {
    std::this_thread::sleep_for(milliseconds(30));
    if (robots_answers++ == 0) {
      res.set_content("User-agent: *\nCrawl-delay: 0.2\n", "text/plain");
    } else {
      res.status = 503;
    }
  }));
  testing::serve_page_list(site, timeline, kPages, milliseconds(30));
  site.start();
  const nlohmann::json report = testing::crawl_loopback_site(
      site, milliseconds(0),
      [](CrawlConfig& c) {
        c.politeness.concurrency_per_host = 4;
        c.politeness.robots_ttl_s = 1;  // expires during the crawl
      },
      [](CrawlerSettings& s) {
        s.robots.retry_initial = milliseconds(200);
      });  // the failed re-fetch is tried again soon

  EXPECT_EQ(report["crawl"]["stopped_by"], "done");
  const std::vector<RobotsTimelineRequest> requests = timeline.requests();
  ASSERT_EQ(requests.size() - count_robots_requests(requests), 1u + kPages);
  // The first fetch, the re-fetch on expiry, and at least one re-fetch beside the pages' crawl.
  EXPECT_GE(count_robots_requests(requests), 3u);
  EXPECT_EQ(testing::RequestTimeline::max_in_flight(requests), 1u);
  EXPECT_GE(testing::RequestTimeline::min_start_gap(requests), kCrawlDelay);
}

}  // namespace
}  // namespace bloomcrawl
