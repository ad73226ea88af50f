// The crawl an operator would configure for the whole test web: every host in scope, no depth
// limit, no delay, four transfers per host, loopback allowed, outputs in `out_dir`.
#pragma once

#include <filesystem>

#include "config/config.h"
#include "tests/support/test_web.h"

namespace bloomcrawl::testing {

inline CrawlConfig test_web_config(const testweb::TestWeb& web, const std::filesystem::path& out_dir) {
  CrawlConfig c;
  c.seeds.urls = {web.seed_url()};
  c.scope.allowed_hosts = web.options().hosts;
  c.scope.max_depth = -1;
  c.politeness.delay_ms = 0;
  c.politeness.concurrency_per_host = 4;
  c.fetch.allowed_ranges = {"127.0.0.0/8"};
  c.output.directory = out_dir.string();
  return c;
}

}  // namespace bloomcrawl::testing
