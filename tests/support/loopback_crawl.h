// crawl_loopback_site(): a whole crawl of a LoopbackHttpServer's site (127.0.0.1, from "/"), with
// the crawler's defaults but `delay` between requests, its output in a temporary directory
// removed afterwards. Stops the server, so every request it logged is in before the caller looks.
#pragma once

#include <chrono>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/fetch_loopback_server.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl::testing {

inline nlohmann::json crawl_loopback_site(LoopbackHttpServer& site, std::chrono::milliseconds delay) {
  const TempDir out;
  CrawlConfig c;
  c.seeds.urls = {site.url("/")};
  c.scope.allowed_hosts = {"127.0.0.1"};
  c.politeness.delay_ms = int(delay.count());
  c.fetch.allowed_ranges = {"127.0.0.0/8"};
  c.output.directory = out.path().string();
  nlohmann::json report = Crawler(settings_from_config(c)).run();
  site.stop();
  return report;
}

}  // namespace bloomcrawl::testing
