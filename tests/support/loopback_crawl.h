// crawl_loopback_site(): a whole crawl of a LoopbackHttpServer's site (127.0.0.1, from "/"), with
// the crawler's defaults but `delay` between requests (and what the adjust hooks change), its output in a
// temporary directory removed afterwards. Stops the server, so every request it logged is in
// before the caller looks. crawl_subdomains() is the same from a *.site.localhost seed, in scope
// site.localhost (libcurl resolves every *.localhost name to loopback, RFC 6761 6.3).
// serve_page_list() gives a site the home page "/" linking /p0.. /p<pages-1>, pages that answer
// after `latency`, so that requests sent together overlap at the server.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/fetch_loopback_server.h"
#include "tests/support/request_timeline.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl::testing {

inline nlohmann::json crawl_loopback_site(LoopbackHttpServer& site, std::chrono::milliseconds delay,
                                          const std::function<void(CrawlConfig&)>& adjust = {},
                                          const std::function<void(CrawlerSettings&)>& adjust_settings = {}) {
  const TempDir out;
  CrawlConfig c;
  c.seeds.urls = {site.url("/")};
  c.scope.allowed_hosts = {"127.0.0.1"};
  c.politeness.delay_ms = int(delay.count());
  c.fetch.allowed_ranges = {"127.0.0.0/8"};
  c.output.directory = out.path().string();
  if (adjust) adjust(c);
  CrawlerSettings settings = settings_from_config(c);
  if (adjust_settings) adjust_settings(settings);
  nlohmann::json report = Crawler(std::move(settings)).run();
  site.stop();
  return report;
}

inline nlohmann::json crawl_subdomains(LoopbackHttpServer& site, const std::string& seed, const std::string& group_by,
                                       int concurrency, std::chrono::milliseconds delay) {
  return crawl_loopback_site(site, delay, [&](CrawlConfig& c) {
    c.seeds.urls = {seed};
    c.scope.allowed_hosts.clear();
    c.scope.allowed_domains = {"site.localhost"};
    c.politeness.group_by = group_by;
    c.politeness.concurrency_per_host = concurrency;
    c.fetch.allowed_ranges = {"127.0.0.0/8", "::1/128"};
  });
}

// "/" links /p0 ... /p<pages-1>; each page is answered after `latency`, the server's latency (so
// that requests sent together overlap in the timeline), never a synchronisation.
inline void serve_page_list(LoopbackHttpServer& site, RequestTimeline& timeline, int pages,
                            std::chrono::milliseconds latency) {
  site.server().Get("/", timeline.stamped([pages](const httplib::Request&, httplib::Response& res) {
    std::string links;
    for (int i = 0; i < pages; ++i) links += "<a href='/p" + std::to_string(i) + "'>p</a>";
    res.set_content(links, "text/html");
  }));
  site.server().Get(R"(/p\d+)", timeline.stamped([latency](const httplib::Request&, httplib::Response& res) {
    std::this_thread::sleep_for(latency);
    res.set_content("page", "text/html");
  }));
}

}  // namespace bloomcrawl::testing
