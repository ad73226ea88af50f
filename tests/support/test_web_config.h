// The crawl an operator would configure for the whole test web: every host in scope, no depth
// limit, no delay, four transfers per host, loopback allowed, outputs in `out_dir`; and the
// settings of a checkpointed one.
#pragma once

#include <chrono>
#include <filesystem>

#include "config/config.h"
#include "config/key_hash.h"
#include "crawler/pipeline/crawl_settings.h"
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

// The settings `bloomcrawl crawl` makes of `c` with its checkpoint directory, a generation every
// `c.checkpoint.interval_pages` pages and none by time, as a test's checkpointed crawl needs them.
inline CrawlerSettings checkpointed_settings(const CrawlConfig& c) {
  validate_config(c);
  CrawlerSettings s = settings_from_config(c);
  s.checkpoint.directory = c.checkpoint.directory;
  s.checkpoint.interval = std::chrono::seconds(0);
  s.checkpoint.interval_pages = c.checkpoint.interval_pages;
  s.checkpoint.config = to_json(c);
  s.checkpoint.key_hash = canonical_key_hash(c);
  return s;
}

}  // namespace bloomcrawl::testing
