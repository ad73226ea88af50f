// Checkpointing while the pipeline runs at full concurrency, in process so TSan sees every
// thread: generations cut every few pages (the gate pause racing fetch completions, parse workers
// and the background writer), the journal appended from all of them, audit on. The crawl must
// still fetch the ground truth once, and a resume of the finished crawl must find nothing to do.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>

#include "config/config.h"
#include "config/key_hash.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/test_web.h"
#include "tests/support/test_web_config.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

TEST(ResumeConcurrentTest, CheckpointsTakenUnderLoadLoseNothing) {
  const fs::path dir = fs::temp_directory_path() / ("resume_concurrent_" + std::to_string(getpid()));
  fs::remove_all(dir);
  testweb::TestWebOptions o;
  o.trap = false;
  testweb::TestWeb web(o);
  web.start();

  CrawlConfig c = testing::test_web_config(web, dir / "out");
  c.seen_filter.initial_capacity = 1000;
  c.checkpoint.directory = (dir / "ckpt").string();
  c.checkpoint.interval_pages = 5;
  c.checkpoint.journal_group_entries = 8;
  c.audit = true;
  validate_config(c);
  CrawlerSettings s = settings_from_config(c);
  s.parse_threads = 3;
  s.checkpoint.directory = c.checkpoint.directory;
  s.checkpoint.interval = std::chrono::seconds(0);
  s.checkpoint.interval_pages = c.checkpoint.interval_pages;
  s.checkpoint.journal.group_entries = 8;
  s.checkpoint.config = to_json(c);
  s.checkpoint.key_hash = canonical_key_hash(c);
  s.audit = true;

  nlohmann::json first;
  {
    Crawler crawler(s);
    first = crawler.run();
  }
  EXPECT_EQ(first["crawl"]["stopped_by"], "done");
  EXPECT_GT(first["checkpoint"]["taken"].get<uint64_t>(), 5u);
  EXPECT_EQ(first["checkpoint"]["failed"].get<uint64_t>(), 0u);
  const testweb::FetchLogSummary summary = web.summary();
  EXPECT_EQ(summary.duplicate_fetches, 0u);
  const std::vector<std::string> truth = web.ground_truth(web.site_depth());
  EXPECT_EQ(summary.distinct_urls, truth.size());
  EXPECT_EQ(first["audit"]["exact_urls"].get<uint64_t>(), first["seen_filter"]["keys"].get<uint64_t>());

  nlohmann::json again;
  {
    Crawler crawler(s, std::make_unique<CrawlCheckpoint>(load_crawl_checkpoint(c.checkpoint.directory)));
    again = crawler.run();
  }
  EXPECT_EQ(again["crawl"]["stopped_by"], "done");
  EXPECT_EQ(web.summary().page_requests, summary.page_requests) << "a finished crawl fetched again";
  EXPECT_EQ(again["fetches"]["pages_fetched"], first["fetches"]["pages_fetched"]);
  EXPECT_EQ(again["links"]["duplicates"], first["links"]["duplicates"]);
  EXPECT_EQ(again["checkpoint"]["resumes"].get<uint64_t>(), 1u);
  web.stop();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace bloomcrawl
