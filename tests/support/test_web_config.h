// A test web started without its trap; the crawl an operator would configure for the whole test web: every host in
// scope, no depth limit, no delay, four transfers per host, loopback allowed, outputs in `out_dir`; and the settings of
// a checkpointed one; the pages a crawl of it left without a record.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/key_hash.h"
#include "crawler/pipeline/crawl_settings.h"
#include "tests/support/page_records.h"
#include "tests/support/test_web.h"

namespace bloomcrawl::testing {

// A started test web without its trap, `pages_per_host` pages per host (its default is 60).
inline std::unique_ptr<testweb::TestWeb> start_test_web(uint32_t pages_per_host = 60,
                                                        std::chrono::milliseconds response_delay = {}) {
  testweb::TestWebOptions o;
  o.trap = false;
  o.pages_per_host = pages_per_host;
  o.response_delay = response_delay;
  auto web = std::make_unique<testweb::TestWeb>(o);
  web->start();
  return web;
}

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

// test_web_config() for tests that stop and resume it: generous timeouts, a small first filter
// layer, and a generation every `interval_pages` pages (none by time) in `checkpoints` unless empty.
inline CrawlConfig resumable_test_web_config(const testweb::TestWeb& web, const std::filesystem::path& out_dir,
                                             const std::filesystem::path& checkpoints, uint64_t interval_pages) {
  CrawlConfig c = test_web_config(web, out_dir);
  c.fetch.connect_timeout_ms = 5000;
  c.fetch.total_timeout_ms = 20000;
  c.seen_filter.initial_capacity = 1000;
  if (!checkpoints.empty()) {
    c.checkpoint.directory = checkpoints.string();
    c.checkpoint.interval_pages = interval_pages;
    c.checkpoint.interval_s = 0;
  }
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

// The test web's pages (its ground truth) that pages.jsonl in `out_dir` has no record of.
inline std::vector<std::string> unrecorded_pages(const testweb::TestWeb& web, const std::filesystem::path& out_dir) {
  const auto records = read_page_records(out_dir);
  std::vector<std::string> missing;
  for (const std::string& url : web.ground_truth(web.site_depth())) {
    if (!records.contains(url)) missing.push_back(url);
  }
  // Every URL the server was asked for (a page answered, then lost with its outputs, too).
  for (const testweb::LoggedRequest& r : web.requests()) {
    if (!r.robots_txt && !records.contains(r.canonical_url)) missing.push_back(r.canonical_url + " (answered)");
  }
  return missing;
}

}  // namespace bloomcrawl::testing
