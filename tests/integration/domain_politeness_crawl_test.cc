// politeness.group_by in a crawl of many subdomains of one site (issue 16): with "domain" the
// delay and concurrency hold across all of them, with "host" each subdomain has its own. Judged
// from the server's side. The names sN.site.localhost reach the loopback server through libcurl,
// which resolves every *.localhost name to loopback itself (RFC 6761 6.3), so no DNS is involved;
// their registrable domain is site.localhost (the Public Suffix List's default rule).
#include <chrono>
#include <condition_variable>
#include <mutex>
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
using Request = testing::RequestTimeline::Request;

constexpr int kSubdomains = 6;

// s0's home page links every subdomain's home page, and each home page one more page.
class Subdomains {
 public:
  // `before_home` runs in the handler of each home page but s0's, before it answers.
  explicit Subdomains(const std::function<void()>& before_home = [] {}) {
    site_.server().Get("/", timeline_.stamped([this, before_home](const httplib::Request& req, httplib::Response& res) {
      std::string links = "<a href='/more'>more</a>";
      if (req.get_header_value("Host").starts_with("s0.")) {
        for (int i = 0; i < kSubdomains; ++i) links += "<a href='" + home(i) + "'>s</a>";
      } else {
        before_home();
      }
      // Each home page its own body: identical ones would be duplicates whose links (/more) are not
      // followed (content_seen.skip_links_of_duplicates, docs/content-seen.md).
      res.set_content(links + "<p>" + req.get_header_value("Host") + "</p>", "text/html");
    }));
    site_.server().Get("/more", timeline_.stamped([](const httplib::Request&, httplib::Response& res) {
      std::this_thread::sleep_for(milliseconds(20));  // a server at work: overlapping requests show
      res.set_content("more", "text/html");
    }));
    site_.start();
  }

  std::string home(int i) const { return "http://s" + std::to_string(i) + ".site.localhost:" + port() + "/"; }

  nlohmann::json crawl(const std::string& group_by, int concurrency, milliseconds delay) {
    return testing::crawl_subdomains(site_, home(0), group_by, concurrency, delay);
  }

  // Page requests (robots.txt requests in a group: robots_politeness_crawl_concurrent_test.cc).
  std::vector<Request> pages() const {
    return timeline_.requests([](const Request& r) { return r.path != "/robots.txt"; });
  }

 private:
  std::string port() const {
    const std::string url = site_.url("");
    return url.substr(url.rfind(':') + 1);
  }

  testing::LoopbackHttpServer site_;
  testing::RequestTimeline timeline_;
};

TEST(DomainPolitenessCrawl, ConcurrencyHoldsAcrossAllSubdomains) {
  Subdomains site;
  const nlohmann::json report = site.crawl("domain", 2, milliseconds(0));
  EXPECT_EQ(report["crawl"]["stopped_by"], "done");
  const std::vector<Request> pages = site.pages();
  ASSERT_EQ(pages.size(), 2u * kSubdomains);
  EXPECT_LE(testing::RequestTimeline::max_in_flight(pages), 2u);
}

TEST(DomainPolitenessCrawl, DelayHoldsBetweenStartsAcrossAllSubdomains) {
  constexpr milliseconds kDelay{50};
  Subdomains site;
  const nlohmann::json report = site.crawl("domain", 1, kDelay);
  EXPECT_EQ(report["crawl"]["stopped_by"], "done");
  const std::vector<Request> pages = site.pages();
  ASSERT_EQ(pages.size(), 2u * kSubdomains);
  EXPECT_EQ(testing::RequestTimeline::max_in_flight(pages), 1u);
  EXPECT_GE(testing::RequestTimeline::min_start_gap(pages), kDelay);
}

TEST(DomainPolitenessCrawl, ByHostEachSubdomainIsPoliteOnItsOwn) {
  // Each home page but s0's waits (up to a bound) until three of them are being answered at once,
  // which happens only if their hosts are dispatched independently.
  constexpr int kTogether = 3;
  std::mutex mu;
  std::condition_variable cv;
  int answering = 0;
  int most = 0;
  Subdomains site([&] {
    std::unique_lock lock(mu);
    most = std::max(most, ++answering);
    cv.notify_all();
    cv.wait_for(lock, std::chrono::seconds(10), [&] { return most >= kTogether; });
    --answering;
  });
  const nlohmann::json report = site.crawl("host", 1, milliseconds(100));
  EXPECT_EQ(report["crawl"]["stopped_by"], "done");
  EXPECT_GE(most, kTogether);
  EXPECT_GE(testing::RequestTimeline::max_in_flight(site.pages()), size_t(kTogether));
}

}  // namespace
}  // namespace bloomcrawl
