// The crawl's URL records (crawl_records.h, docs/records.md "In the crawl") over whole crawls of
// the local test web: every page record of pages.jsonl has its URL record with the same outcome
// and none is left queued, after a crawl, after kill -9s and resumes, and after a records store
// that failed and a resume with the disk healed; a damaged records checkpoint falls back to the
// generation before; a resume with no frontier left requeues the records still queued; and exact mode
// (seen_filter.exact) at high false-positive rates fetches the whole test web, each page once, rescuing the filter's
// false positives.
#include <gtest/gtest.h>
#include <sys/types.h>

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/persist/crawl_checkpoint.h"
#include "crawler/pipeline/crawl_records.h"
#include "crawler/pipeline/crawler.h"
#include "records/record_store.h"
#include "tests/support/faulty_store_file_system.h"
#include "tests/support/page_records.h"
#include "tests/support/spawn.h"
#include "tests/support/stopped_crawl.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_web.h"
#include "tests/support/test_web_config.h"
#include "tests/support/url_records_check.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using testweb::TestWeb;

class CrawlRecordsTest : public ::testing::Test {
 protected:
  void start_web(uint32_t pages_per_host = 60, std::chrono::milliseconds delay = {}) {
    web_ = testing::start_test_web(pages_per_host, delay);
  }
  void TearDown() override {
    if (web_) web_->stop();
  }

  fs::path out() const { return dir_ / "out"; }
  fs::path checkpoints() const { return dir_ / "ckpt"; }

  CrawlConfig config(bool checkpointed) const {
    return testing::resumable_test_web_config(*web_, out(), checkpointed ? checkpoints() : fs::path(), 20);
  }

  void expect_every_page_recorded() const {
    EXPECT_EQ(testing::unrecorded_pages(*web_, out()), std::vector<std::string>{});
  }

  testing::TempDir temp_;
  const fs::path dir_ = temp_.path();
  std::unique_ptr<TestWeb> web_;
};

TEST_F(CrawlRecordsTest, WithoutCheckpointsTheRecordsInTheOutputDirectoryMatchPagesJsonl) {
  start_web();
  const nlohmann::json report = Crawler(settings_from_config(config(false))).run();
  ASSERT_EQ(report["crawl"]["stopped_by"], "done");
  expect_every_page_recorded();
  testing::expect_records_match_pages(out() / "records", out());
}

TEST_F(CrawlRecordsTest, EveryGenerationCarriesTheRecordsAndTheLastMatchesPagesJsonl) {
  start_web();
  const CrawlerSettings s = testing::checkpointed_settings(config(true));
  const nlohmann::json report = Crawler(s).run();
  ASSERT_EQ(report["crawl"]["stopped_by"], "done");
  ASSERT_GT(report["checkpoint"]["taken"].get<uint64_t>(), 2u);
  expect_every_page_recorded();
  testing::expect_records_match_pages(testing::current_records(checkpoints()), out());
}

// Exact mode at a false-positive rate no one would choose: every "maybe seen" is asked of the
// records, so the filter's false positives are fetched after all, and no page twice.
class ExactModeTest : public CrawlRecordsTest, public ::testing::WithParamInterface<double> {};

TEST_P(ExactModeTest, FetchesTheWholeTestWebOnceAndCountsTheRescuedFalsePositives) {
  start_web(230);
  CrawlConfig c = config(false);
  c.seen_filter.target_fpr = GetParam();
  c.seen_filter.tightening_ratio = 0;  // one layer with the whole rate: its false positives come early
  // The layer (1000 URLs, the least allowed) nearly full by the end, so that it nears its target
  // rate: ~940 URLs admitted. With 150 pages a host (~615 URLs) ~2 false positives were expected
  // at 5%, and a run met none.
  c.seen_filter.exact = true;
  validate_config(c);
  const nlohmann::json report = Crawler(settings_from_config(c)).run();
  ASSERT_EQ(report["crawl"]["stopped_by"], "done");
  EXPECT_GT(report["links"]["false_positives_rescued"].get<uint64_t>(), 0u) << report["links"].dump();
  EXPECT_EQ(report["links"]["filter_full"], 0) << "the layer overflowed: " << report["links"].dump();
  EXPECT_EQ(web_->summary().duplicate_fetches, 0u);
  expect_every_page_recorded();
  testing::expect_records_match_pages(out() / "records", out());
  uint64_t flagged = 0;
  for (const auto& [url, r] : testing::read_url_records(out() / "records"))
    flagged += (r.flags & kRecordRescuedFalsePositive) ? 1 : 0;
  EXPECT_EQ(flagged, report["links"]["false_positives_rescued"].get<uint64_t>());
}

INSTANTIATE_TEST_SUITE_P(HighRates, ExactModeTest, ::testing::Values(0.05, 0.20));

// kill -9 of the `bloomcrawl` process at three points (responses delayed, so transfers are in
// flight), each followed by a resume: the records the last generation holds match pages.jsonl.
TEST_F(CrawlRecordsTest, KilledThenResumedTheRecordsMatchPagesJsonl) {
  start_web(60, std::chrono::milliseconds(5));
  nlohmann::json c = {
      {"seeds", {{"urls", {web_->seed_url()}}}},
      {"scope", {{"allowed_hosts", web_->options().hosts}, {"max_depth", -1}}},
      {"politeness", {{"delay_ms", 0}, {"concurrency_per_host", 2}}},
      {"fetch", {{"allowed_ranges", {"127.0.0.0/8"}}, {"connect_timeout_ms", 5000}, {"total_timeout_ms", 20000}}},
      {"seen_filter", {{"initial_capacity", 1000}, {"exact", true}}},
      {"output", {{"directory", out().string()}}},
      {"checkpoint", {{"directory", checkpoints().string()}, {"interval_s", 0}, {"interval_pages", 15}}},
      {"logging", {{"progress", "never"}}},
  };
  std::ofstream(dir_ / "crawl.json") << c.dump(2);
  const std::vector<std::string> crawl = {BLOOMCRAWL_BIN, "crawl", "-c", (dir_ / "crawl.json").string()};
  uint64_t kills = 0;
  for (const uint64_t at : {25, 70, 120}) {
    std::vector<std::string> args = crawl;
    if (kills > 0) args.emplace_back("--resume");
    // Held from the at-th page request on, so the crawl cannot end before the kill however late
    // this thread runs.
    web_->hold_responses_from_page_request(at);
    const pid_t child = testing::spawn_to_files(args, (dir_ / "stdout").string(), (dir_ / "stderr").string());
    ASSERT_GT(child, 0);
    const bool reached = web_->wait_for_hold(std::chrono::seconds(60)).has_value();
    kill(child, SIGKILL);
    web_->release_responses();
    const int exit_code = testing::wait_exit_code(child);
    ASSERT_TRUE(reached) << "the crawl did not reach " << at << " pages";
    ASSERT_EQ(exit_code, 128 + SIGKILL);
    ++kills;
  }
  std::vector<std::string> args = crawl;
  args.emplace_back("--resume");
  const pid_t child = testing::spawn_to_files(args, (dir_ / "stdout").string(), (dir_ / "stderr").string());
  ASSERT_EQ(testing::wait_exit_code(child), 0);
  expect_every_page_recorded();
  testing::expect_records_match_pages(testing::current_records(checkpoints()), out());
}

// A table file of the newest generation's records damaged on disk: the resume falls back to the
// generation before and ends with records that match pages.jsonl.
TEST_F(CrawlRecordsTest, ADamagedRecordsCheckpointFallsBackToTheGenerationBefore) {
  start_web();
  const CrawlerSettings s = testing::checkpointed_settings(config(true));
  bool fetching = false;
  const nlohmann::json first = testing::crawl_then_stop(s, *web_, 70, &fetching);
  ASSERT_TRUE(fetching);
  ASSERT_EQ(first["crawl"]["stopped_by"], "signal");
  const CrawlManifest newest = read_crawl_manifest(checkpoints());
  ASSERT_FALSE(newest.records_directory.empty());
  std::vector<fs::path> tables;
  for (const fs::directory_entry& e : fs::directory_iterator(checkpoints() / newest.records_directory)) {
    if (e.path().extension() == ".sst") tables.push_back(e.path());
  }
  ASSERT_FALSE(tables.empty());
  testing::damage_file(tables.back());

  auto loaded = std::make_unique<CrawlCheckpoint>(load_crawl_checkpoint(checkpoints()));
  EXPECT_LT(loaded->manifest.generation, newest.generation);
  const nlohmann::json report = Crawler(s, std::move(loaded)).run();
  EXPECT_EQ(report["crawl"]["stopped_by"], "done");
  expect_every_page_recorded();
  testing::expect_records_match_pages(testing::current_records(checkpoints()), out());
}

// Every generation's frontier checkpoint lost: the resume loads the newest generation without it
// and queues again every URL its records (brought to the journal's state) say is still queued.
TEST_F(CrawlRecordsTest, AResumeWithEveryFrontierLostRebuildsTheQueueFromTheRecords) {
  start_web();
  const CrawlerSettings s = testing::checkpointed_settings(config(true));
  bool fetching = false;
  const nlohmann::json first = testing::crawl_then_stop(s, *web_, 70, &fetching);
  ASSERT_TRUE(fetching);
  ASSERT_EQ(first["crawl"]["stopped_by"], "signal");
  const uint64_t queued = read_crawl_manifest(checkpoints()).queued;
  ASSERT_GT(queued, 0u) << "nothing left to requeue: the test proves nothing";
  for (const fs::directory_entry& e : fs::directory_iterator(checkpoints())) {
    if (e.path().filename().string().starts_with("frontier-")) fs::remove_all(e.path());
  }
  auto loaded = std::make_unique<CrawlCheckpoint>(load_crawl_checkpoint(checkpoints()));
  EXPECT_TRUE(loaded->frontier_lost);
  const nlohmann::json report = Crawler(s, std::move(loaded)).run();
  EXPECT_EQ(report["crawl"]["stopped_by"], "done") << report["crawl"].dump();
  expect_every_page_recorded();
  testing::expect_records_match_pages(testing::current_records(checkpoints()), out());
  for (const auto& [url, lines] : testing::read_page_records(out())) EXPECT_EQ(lines.size(), 1u) << url;
}

// The records store's disk fails (its table files cannot be written): the crawl stops with exit
// status "error" naming the records directory, and a resume with the disk healed ends with every
// page and records that match pages.jsonl.
TEST_F(CrawlRecordsTest, ARecordsWriteFailureStopsTheCrawlAndAResumeEndsIt) {
  start_web();
  const CrawlerSettings s = testing::checkpointed_settings(config(true));
  testing::StoreFaults faults;
  nlohmann::json first;
  {
    Crawler crawler(s);
    // Once the store is open: its first table file (the only numbered files written from then on,
    // with no write-ahead log), written when a generation's copy flushes the store.
    faults->fail(testing::FaultyStoreFileSystem::Op::kWrite, "records-live/0", 1, ENOSPC, /*every_later=*/true);
    first = crawler.run();
  }
  ASSERT_EQ(first["crawl"]["stopped_by"], "error") << "the fault never fired: the test proves nothing";
  const std::string error = first["crawl"]["error"].get<std::string>();
  EXPECT_NE(error.find((checkpoints() / "records-live").string()), std::string::npos) << error;
  EXPECT_NE(error.find("records store"), std::string::npos) << error;
  faults->clear();
  const nlohmann::json report =
      Crawler(s, std::make_unique<CrawlCheckpoint>(load_crawl_checkpoint(checkpoints()))).run();
  EXPECT_EQ(report["crawl"]["stopped_by"], "done") << report["crawl"].dump();
  expect_every_page_recorded();
  testing::expect_records_match_pages(testing::current_records(checkpoints()), out());
}

}  // namespace
}  // namespace bloomcrawl
