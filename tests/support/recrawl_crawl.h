// The revisit tests' crawl (docs/recrawl.md): a checkpointed crawl of one loopback site with
// recrawl on, and what its URL records say of the schedule.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "config/config.h"
#include "records/url_record.h"
#include "tests/support/url_records_check.h"

namespace bloomcrawl::testing {

// Seeded with `seed` on 127.0.0.1, no politeness delay, outputs in `dir`/out and checkpoints in
// `dir`/ckpt, recrawl enabled with its default intervals.
inline CrawlConfig recrawl_crawl_config(const std::string& seed, const std::filesystem::path& dir) {
  CrawlConfig c;
  c.seeds.urls = {seed};
  c.scope.allowed_hosts = {"127.0.0.1"};
  c.politeness.delay_ms = 0;
  c.fetch.allowed_ranges = {"127.0.0.0/8"};
  c.output.directory = (dir / "out").string();
  c.checkpoint.directory = (dir / "ckpt").string();
  c.recrawl.enabled = true;
  c.logging.progress = "never";
  return c;
}

// The URL records of the checkpoint directory's current generation, by URL.
inline std::map<std::string, UrlRecord> checkpoint_url_records(const std::filesystem::path& checkpoints) {
  return read_url_records(current_records(checkpoints));
}

// The interval the schedule chose at the record's last fetch, in seconds.
inline int64_t scheduled_interval_s(const UrlRecord& r) { return (r.next_fetch_ms - r.last_fetched_ms) / 1000; }

}  // namespace bloomcrawl::testing
