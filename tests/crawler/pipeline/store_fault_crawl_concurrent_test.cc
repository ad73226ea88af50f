// Whole crawls of the local test web over a RocksDB file system that fails on cue
// (FaultyStoreFileSystem): a store write failing while links are pushed, a read failing at a
// refill, the live store's flush failing at a mid-crawl checkpoint cut, each step of a checkpoint's
// store copy failing (creating, hard-linking, syncing its files), the store failing while the
// seeds are pushed, a robots.txt lookup throwing after its link was queued, and a damaged store file in the newest
// generation at resume. Each first crawl stops with an error naming the store's directory (never an abort, a hang or a
// "done"), and a resume with the disk healed ends with a record for every page of the test web (docs/outcomes.md, "One
// clean stop"). In process, so TSan sees every thread.
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "config/key_hash.h"
#include "crawler/persist/crawl_checkpoint.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/faulty_store_file_system.h"
#include "tests/support/page_records.h"
#include "tests/support/stopped_crawl.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_web.h"
#include "tests/support/test_web_config.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using Op = testing::FaultyStoreFileSystem::Op;
using testweb::TestWeb;

class StoreFaultCrawlTest : public ::testing::Test {
 protected:
  // The test web with `pages_per_host` pages per host (its default is 60).
  void start_web(uint32_t pages_per_host = 60) { web_ = testing::start_test_web(pages_per_host); }
  void TearDown() override {
    if (web_) web_->stop();
  }
  // Enough URLs that the store's smallest memtables (64 KiB) fill and flush during the crawl.
  static constexpr uint32_t kPagesToFillAMemtable = 150;

  fs::path out() const { return dir_ / "out"; }
  fs::path checkpoints() const { return dir_ / "ckpt"; }

  // Every queued URL on disk (a memory limit of one byte: each dispatch reads the store), a
  // generation every `interval_pages` pages (0: only the first and the last).
  CrawlerSettings settings(uint64_t interval_pages, bool checkpointed = true) const {
    const CrawlConfig c =
        testing::resumable_test_web_config(*web_, out(), checkpointed ? checkpoints() : fs::path(), interval_pages);
    validate_config(c);
    CrawlerSettings s = settings_from_config(c);
    s.parse_threads = 2;
    s.frontier.memory_limit_bytes = 1;
    if (checkpointed) {
      s.checkpoint.directory = c.checkpoint.directory;
      s.checkpoint.interval = std::chrono::seconds(0);
      s.checkpoint.interval_pages = interval_pages;
      s.checkpoint.config = to_json(c);
      s.checkpoint.key_hash = canonical_key_hash(c);
    }
    return s;
  }

  // The first crawl stopped on the store's failure, saying so.
  static void expect_stopped_by_the_store(const nlohmann::json& report, const std::string& directory_part) {
    ASSERT_EQ(report["crawl"]["stopped_by"], "error") << "the fault never fired: the test proves nothing";
    const std::string error = report["crawl"]["error"].get<std::string>();
    EXPECT_NE(error.find(directory_part), std::string::npos) << error;
    EXPECT_NE(error.find("frontier store"), std::string::npos) << error;
  }

  // The resume, with the disk healed, ends with a record for every page of the test web.
  void expect_a_resume_completes(const CrawlerSettings& s) {
    nlohmann::json report =
        Crawler(s, std::make_unique<CrawlCheckpoint>(load_crawl_checkpoint(s.checkpoint.directory))).run();
    EXPECT_EQ(report["crawl"]["stopped_by"], "done");
    EXPECT_FALSE(report["crawl"].contains("error")) << report["crawl"].dump();
    expect_every_page_recorded();
  }

  // Every page of the test web, and every URL the server was asked for, has a record.
  void expect_every_page_recorded() const {
    EXPECT_EQ(testing::unrecorded_pages(*web_, out()), std::vector<std::string>{});
  }

  testing::TempDir temp_;
  const fs::path dir_ = temp_.path();
  std::unique_ptr<TestWeb> web_;
  testing::StoreFaults faults_;
};

TEST_F(StoreFaultCrawlTest, AStoreWriteFailingWhileLinksArePushedStopsTheCrawlAndAResumeEndsIt) {
  start_web(kPagesToFillAMemtable);
  const CrawlerSettings s = settings(0);
  // The live store's disk fills: its first memtable flush fails (table files are written only
  // there; a generation hard-links them), and with it the next batch written while a page's
  // links are pushed.
  faults_->fail(Op::kWrite, ".sst", 1, ENOSPC, /*every_later=*/true);
  const nlohmann::json first = Crawler(s).run();
  expect_stopped_by_the_store(first, (checkpoints() / "frontier-live").string());
  EXPECT_NE(first["crawl"]["error"].get<std::string>().find("No space left on device"), std::string::npos);
  EXPECT_GT(first["checkpoint"]["failed"].get<uint64_t>(), 0u) << "a final generation of a failed store";
  faults_->clear();
  expect_a_resume_completes(s);
}

TEST_F(StoreFaultCrawlTest, AStoreReadFailingAtARefillStopsTheCrawlAndAResumeEndsIt) {
  start_web();
  const CrawlerSettings s = settings(20);
  bool fetching = false;
  // Once generations have flushed URLs into table files, reading them fails.
  const nlohmann::json first = testing::crawl_acting_at(
      s, *web_, 40, [&](Crawler&) { faults_->fail(Op::kRead, "frontier-live/", 1, EIO, /*every_later=*/true); },
      &fetching);
  EXPECT_TRUE(fetching);
  expect_stopped_by_the_store(first, (checkpoints() / "frontier-live").string());
  faults_->clear();
  expect_a_resume_completes(s);
}

TEST_F(StoreFaultCrawlTest, AFailedStoreCopyOfAGenerationStopsTheCrawlAndAResumeEndsIt) {
  start_web();
  const CrawlerSettings s = settings(20);
  faults_->fail(Op::kCreate, "frontier-000003/", 1, ENOSPC, /*every_later=*/true);
  const nlohmann::json first = Crawler(s).run();
  expect_stopped_by_the_store(first, "frontier-000003");
  EXPECT_FALSE(fs::exists(checkpoints() / "CRAWL-000003")) << "a generation without its frontier";
  faults_->clear();
  expect_a_resume_completes(s);
}

// A checkpoint cut mid-crawl flushes the live store's memtable into a table file, which its
// generation hard-links; the disk refuses it (every later file too, as a full disk would).
TEST_F(StoreFaultCrawlTest, TheStoreFailingAtAMidCrawlCheckpointCutStopsTheCrawlAndAResumeEndsIt) {
  start_web();
  const CrawlerSettings s = settings(20);
  bool fetching = false;
  const nlohmann::json first = testing::crawl_acting_at(
      s, *web_, 30, [&](Crawler&) { faults_->fail(Op::kCreate, "frontier-live/", 1, ENOSPC, /*every_later=*/true); },
      &fetching);
  EXPECT_TRUE(fetching);
  ASSERT_GT(faults_->failures(), 0) << "no cut after the fault was set: the test proves nothing";
  expect_stopped_by_the_store(first, (checkpoints() / "frontier-live").string());
  EXPECT_GT(first["checkpoint"]["failed"].get<uint64_t>(), 0u) << first["checkpoint"].dump();
  faults_->clear();
  expect_a_resume_completes(s);
}

// Each step of writing a mid-crawl generation's store fails in turn (its table files hard-linked
// from the live store, its files synced; creating them: AFailedStoreCopyOfAGeneration... above): the generation is not
// committed, the crawl stops naming it.
class StoreCheckpointWriteFaultTest : public StoreFaultCrawlTest, public ::testing::WithParamInterface<Op> {};

TEST_P(StoreCheckpointWriteFaultTest, StopsTheCrawlAndAResumeEndsIt) {
  start_web();
  const CrawlerSettings s = settings(20);
  faults_->fail(GetParam(), "frontier-000002/", 1, EIO, /*every_later=*/true);
  const nlohmann::json first = Crawler(s).run();
  ASSERT_GT(faults_->failures(), 0) << "the fault never fired: the test proves nothing";
  expect_stopped_by_the_store(first, "frontier-000002");
  EXPECT_FALSE(fs::exists(checkpoints() / "CRAWL-000002")) << "a generation without its frontier";
  faults_->clear();
  expect_a_resume_completes(s);
}

INSTANTIATE_TEST_SUITE_P(Steps, StoreCheckpointWriteFaultTest, ::testing::Values(Op::kLink, Op::kSync),
                         [](const ::testing::TestParamInfo<Op>& info) {
                           return info.param == Op::kLink ? "link" : "sync";
                         });

// More seeds than the store takes before its disk fills: the crawl stops while they are pushed,
// having journaled only those queued before the failure, and fetches nothing. The resume admits
// the seeds its filter lacks: each ends with its record (robots.txt disallows them: no fetch).
TEST_F(StoreFaultCrawlTest, SeedsNotAdmittedBeforeAStoreFailureAreAdmittedByTheResume) {
  start_web();
  CrawlerSettings s = settings(0);
  const std::string origin = s.seeds.front().substr(0, s.seeds.front().find('/', std::string("http://").size()));
  for (int i = 0; i < 5000; ++i) s.seeds.push_back(origin + "/private/seed-" + std::to_string(i));
  faults_->fail(Op::kWrite, ".sst", 1, ENOSPC, /*every_later=*/true);
  const nlohmann::json first = Crawler(s).run();
  expect_stopped_by_the_store(first, (checkpoints() / "frontier-live").string());
  ASSERT_EQ(first["fetches"]["pages_fetched"], 0) << "the store failed after the seeds: the test proves nothing";
  faults_->clear();
  expect_a_resume_completes(s);
  const auto records = testing::read_page_records(out());
  for (const std::string& seed : s.seeds) EXPECT_TRUE(records.contains(seed)) << seed << " has no record";
}

// Without checkpoints, a throw while a new host's robots.txt is looked up, its link already
// queued: the crawl stops, and each admitted URL has one record (the queued link's is written at
// the stop, with the rest queued; the failed admission writes none for it).
TEST_F(StoreFaultCrawlTest, ARobotsLookupThrowingAfterItsLinkIsQueuedLeavesOneRecordPerUrl) {
  start_web();
  CrawlerSettings s = settings(0, /*checkpointed=*/false);
  const std::string seed_origin = s.seeds.front().substr(0, s.seeds.front().find('/', std::string("http://").size()));
  std::atomic<bool> thrown{false};
  s.inject_fault = [&](WorkerPath path, std::string_view url) {
    if (path == WorkerPath::kRobotsLookup && !url.starts_with(seed_origin) && !thrown.exchange(true)) {
      throw std::runtime_error("injected robots.txt lookup failure");
    }
  };
  const nlohmann::json report = Crawler(s).run();
  ASSERT_TRUE(thrown.load()) << "no link to another host: the test proves nothing";
  ASSERT_EQ(report["crawl"]["stopped_by"], "error");
  EXPECT_NE(report["crawl"]["error"].get<std::string>().find("injected"), std::string::npos) << report["crawl"];
  uint64_t records = 0;
  for (const auto& [url, lines] : testing::read_page_records(out())) {
    EXPECT_EQ(lines.size(), 1u) << url;
    records += lines.size();
  }
  EXPECT_EQ(report["links"]["new"].get<uint64_t>(), records);
}

// Without checkpoints there is no resume: every URL the filter admitted still gets its one record,
// those not fetched at the stop included, as far as pages.jsonl takes them.
TEST_F(StoreFaultCrawlTest, WithoutCheckpointsEveryAdmittedUrlHasItsRecordAfterAStoreFailure) {
  start_web(kPagesToFillAMemtable);
  const CrawlerSettings s = settings(0, /*checkpointed=*/false);
  faults_->fail(Op::kWrite, ".sst", 1, ENOSPC, /*every_later=*/true);
  const nlohmann::json report = Crawler(s).run();
  expect_stopped_by_the_store(report, (out() / "frontier-live").string());
  uint64_t records = 0;
  for (const auto& [url, lines] : testing::read_page_records(out())) {
    EXPECT_EQ(lines.size(), 1u) << url;
    records += lines.size();
  }
  EXPECT_EQ(report["links"]["new"].get<uint64_t>(), records);
  EXPECT_EQ(report["outcomes"]["records"].get<uint64_t>(), records);
  EXPECT_GT(report["outcomes"]["by_outcome"].value("not_fetched_at_stop", uint64_t{0}), 0u);
}

// The table files of generation `g`'s store, those generation `before` does not share first. A
// stop right after a periodic checkpoint may add none of its own: the newest generation then links
// only files the one before holds too, and damaging its link of one (damage_file() writes a new
// file in its place) still damages that generation alone.
std::vector<fs::path> table_files_own_first(const fs::path& dir, uint64_t g, uint64_t before) {
  std::set<std::string> shared;
  for (const fs::directory_entry& e : fs::directory_iterator(dir / frontier_directory_name(before) / "store")) {
    shared.insert(e.path().filename().string());
  }
  std::vector<fs::path> own;
  std::vector<fs::path> linked;
  for (const fs::directory_entry& e : fs::directory_iterator(dir / frontier_directory_name(g) / "store")) {
    if (e.path().extension() != ".sst") continue;
    (shared.contains(e.path().filename().string()) ? linked : own).push_back(e.path());
  }
  own.insert(own.end(), linked.begin(), linked.end());
  return own;
}

// A table file of the newest generation damaged on disk is found when the resume loads it (its
// blocks' checksums), and the resume falls back to the generation before, whose journals
// replay what the newer one held.
TEST_F(StoreFaultCrawlTest, ADamagedStoreFileOfTheNewestGenerationFallsBackToTheOneBefore) {
  start_web();
  CrawlerSettings s = settings(20);
  s.checkpoint.keep = 3;
  bool fetching = false;
  const nlohmann::json first = testing::crawl_then_stop(s, *web_, 50, &fetching);
  ASSERT_TRUE(fetching);
  ASSERT_EQ(first["crawl"]["stopped_by"], "signal");
  const CrawlManifest newest = read_crawl_manifest(checkpoints());
  const std::vector<fs::path> tables = table_files_own_first(checkpoints(), newest.generation, newest.generation - 1);
  ASSERT_FALSE(tables.empty()) << "the newest generation's store has no table file";
  testing::damage_file(tables.front());  // a hard link of the live store's file: the damage is this copy's

  const CrawlCheckpoint loaded = load_crawl_checkpoint(checkpoints());
  EXPECT_EQ(loaded.manifest.generation, newest.generation - 1);
  expect_a_resume_completes(s);
}

}  // namespace
}  // namespace bloomcrawl
