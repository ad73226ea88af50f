// Power loss, end to end in process: the file-system seam follows every byte the crawl writes and,
// at a simulated crash mid-crawl, the disk keeps only what was synced (LevelDB's
// DropUnsyncedFileData: each file cut to its last fsync or fdatasync, a file whose name was never
// made durable removed). A resume from what is left ends with a record in pages.jsonl for every
// page the server answered, before or after the crash: the journal never marks a page done before
// its record (and its WARC records and edges) reached the disk (crawler/persist/journal.h,
// "durable before done"). The test web's request log is the ground truth of what was answered.
// A page's completed record is written at once, with where its outputs ended: a kill -9 keeps it
// (the resume fetches no recorded page again), and a resume trusts it only if those outputs are on
// disk (a power loss after the kernel wrote the journal back, but not pages.jsonl, refetches them).
// Also: a failed fdatasync of an output stops the crawl with an error naming the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "crawler/persist/crawl_checkpoint.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/faulty_file_system.h"
#include "tests/support/stopped_crawl.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_web.h"
#include "tests/support/test_web_config.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

class DurableCrawlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testweb::TestWebOptions o;
    o.trap = false;
    o.response_delay = std::chrono::milliseconds(2);  // the crawl is still running at the crash
    web_ = std::make_unique<testweb::TestWeb>(o);
    web_->start();
  }
  void TearDown() override { web_->stop(); }

  // Checkpointed every 20 pages, with edges and WARC, as `bloomcrawl crawl` would set it up.
  CrawlerSettings settings() const {
    CrawlConfig c = testing::test_web_config(*web_, dir_ / "out");
    c.seen_filter.initial_capacity = 1000;
    c.output.edges = true;
    c.output.warc.enabled = true;
    c.checkpoint.directory = (dir_ / "ckpt").string();
    c.checkpoint.interval_pages = 20;
    CrawlerSettings s = testing::checkpointed_settings(c);
    s.parse_threads = 2;
    return s;
  }

  // Every URL with a record; `fetched_only`: those whose record is a fetch's (outcome "ok").
  std::set<std::string> recorded_urls(bool fetched_only = false) const {
    std::set<std::string> urls;
    std::ifstream in(dir_ / "out" / "pages.jsonl");
    for (std::string line; std::getline(in, line);) {
      const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      EXPECT_FALSE(j.is_discarded()) << "a torn record: " << line;
      if (!j.is_discarded() && (!fetched_only || j["outcome"] == "ok")) urls.insert(j["url"].get<std::string>());
    }
    return urls;
  }

  // Page requests (robots.txt aside) the server answered, by canonical URL.
  std::map<std::string, int> requests_by_url() const {
    std::map<std::string, int> count;
    for (const testweb::LoggedRequest& r : web_->requests()) {
      if (!r.robots_txt) ++count[r.canonical_url];
    }
    return count;
  }

  void expect_every_page_recorded() const {
    const std::set<std::string> recorded = recorded_urls();
    for (const auto& [url, requests] : requests_by_url()) {
      EXPECT_TRUE(recorded.contains(url)) << url << " was answered, has no record";
    }
    for (const std::string& url : web_->ground_truth(web_->site_depth())) {
      EXPECT_TRUE(recorded.contains(url)) << url << " has no record";
    }
  }

  // No group commit and no generation between the first and the last: a record the journal held
  // for one would be lost at a crash.
  CrawlerSettings settings_without_commits() const {
    CrawlerSettings s = settings();
    s.checkpoint.interval_pages = 0;
    s.checkpoint.interval = std::chrono::seconds(0);
    s.checkpoint.journal.group_interval = std::chrono::minutes(1);
    return s;
  }

  nlohmann::json resume(const CrawlerSettings& s) const {
    return Crawler(s, std::make_unique<CrawlCheckpoint>(load_crawl_checkpoint(s.checkpoint.directory))).run();
  }

  testing::TempDir temp_;
  const fs::path dir_ = temp_.path();
  std::unique_ptr<testweb::TestWeb> web_;
};

// How many page requests the server has seen when the power goes.
class PowerLossTest : public DurableCrawlTest, public ::testing::WithParamInterface<uint64_t> {};

TEST_P(PowerLossTest, AResumeRecordsEveryPageTheServerAnswered) {
  const CrawlerSettings s = settings();
  {
    testing::FaultyFileSystem disk;
    disk.track_unsynced_data();
    bool crawling = false;
    // Nothing more reaches the disk; the crawl stops on its own errors.
    nlohmann::json report = testing::crawl_acting_at(
        s, *web_, GetParam(), [&](Crawler&) { disk.power_loss(); }, &crawling);
    ASSERT_TRUE(crawling);
    EXPECT_EQ(report["crawl"]["stopped_by"], "error") << report.dump();
    disk.reboot();
    EXPECT_GT(disk.syncs(), 0);
  }
  const size_t answered_before_resume = web_->summary().page_requests;
  nlohmann::json second =
      Crawler(s, std::make_unique<CrawlCheckpoint>(load_crawl_checkpoint(s.checkpoint.directory))).run();
  EXPECT_EQ(second["crawl"]["stopped_by"], "done") << second.dump();

  const std::set<std::string> recorded = recorded_urls();
  std::set<std::string> answered;
  for (const testweb::LoggedRequest& r : web_->requests()) {
    if (!r.robots_txt) answered.insert(r.canonical_url);
  }
  ASSERT_GT(answered_before_resume, 0u);
  for (const std::string& url : answered) EXPECT_TRUE(recorded.contains(url)) << url << " was answered, has no record";
  for (const std::string& url : web_->ground_truth(web_->site_depth())) {
    EXPECT_TRUE(recorded.contains(url)) << url << " has no record";
  }
}

// The WARC file's fdatasync fails in a journal group commit: a later sync could succeed without the
// pages the kernel dropped, so the crawl stops (exit 1 from the CLI) naming the file, which keeps
// its .open name; the group's pages are not marked done, and a resume records every page.
TEST_F(DurableCrawlTest, AFailedWarcSyncStopsTheCrawlNamingTheFile) {
  const CrawlerSettings s = settings();
  {
    testing::FaultyFileSystem disk;
    disk.fail_syncing("/warc/", EIO);
    const nlohmann::json report = Crawler(s).run();
    ASSERT_EQ(report["crawl"]["stopped_by"], "error") << report.dump();
    const std::string error = report["crawl"]["error"].get<std::string>();
    EXPECT_NE(error.find(".warc.gz.open"), std::string::npos) << error;
    EXPECT_NE(error.find("Input/output error"), std::string::npos) << error;
  }
  for (const auto& e : fs::directory_iterator(dir_ / "out" / "warc")) {
    EXPECT_FALSE(e.path().string().ends_with(".warc.gz")) << e.path() << ": completed after a failed sync";
  }
  const nlohmann::json second =
      Crawler(s, std::make_unique<CrawlCheckpoint>(load_crawl_checkpoint(s.checkpoint.directory))).run();
  EXPECT_EQ(second["crawl"]["stopped_by"], "done") << second.dump();
  const std::set<std::string> recorded = recorded_urls();
  for (const std::string& url : web_->ground_truth(web_->site_depth())) {
    EXPECT_TRUE(recorded.contains(url)) << url << " has no record";
  }
}

// A kill -9 (the disk keeps every byte written, nothing more is written after it): each page whose
// record was in pages.jsonl had its completed record written with it, so the resume fetches none of
// them again, but for at most one per parse worker caught between its record and its completed one.
TEST_F(DurableCrawlTest, AKilledCrawlResumesWithoutFetchingARecordedPageAgain) {
  const CrawlerSettings s = settings_without_commits();
  {
    testing::FaultyFileSystem disk;  // no unsynced data followed: what was written stays
    bool crawling = false;
    // The kill: nothing more reaches the disk.
    nlohmann::json report = testing::crawl_acting_at(
        s, *web_, 60, [&](Crawler&) { disk.power_loss(); }, &crawling);
    ASSERT_TRUE(crawling);
    EXPECT_EQ(report["crawl"]["stopped_by"], "error") << report.dump();
  }
  const std::set<std::string> recorded_at_kill = recorded_urls(true);
  ASSERT_GE(recorded_at_kill.size(), 20u);
  const nlohmann::json second = resume(s);
  EXPECT_EQ(second["crawl"]["stopped_by"], "done") << second.dump();
  EXPECT_EQ(second["checkpoint"]["completed_without_outputs"], 0) << second.dump();
  const std::map<std::string, int> requests = requests_by_url();
  size_t fetched_again = 0;
  for (const std::string& url : recorded_at_kill) {
    if (requests.at(url) > 1) ++fetched_again;
  }
  EXPECT_LE(fetched_again, s.parse_threads) << "of " << recorded_at_kill.size() << " pages recorded at the kill";
  expect_every_page_recorded();
}

// A power loss after the kernel wrote the journal back but not pages.jsonl, edges or WARC: the
// journal's completed records are on disk, their pages' outputs are not. The resume finds them
// missing, fetches those pages again, and ends with a record for every page the server answered.
TEST_F(DurableCrawlTest, APowerLossRefetchesPagesMarkedDoneWhoseOutputsWereLost) {
  const CrawlerSettings s = settings_without_commits();
  {
    testing::FaultyFileSystem disk;
    disk.track_unsynced_data();
    disk.written_back("/journal-");
    bool crawling = false;
    testing::crawl_acting_at(
        s, *web_, 60, [&](Crawler&) { disk.power_loss(); }, &crawling);
    ASSERT_TRUE(crawling);
    disk.reboot();
  }
  EXPECT_TRUE(recorded_urls().empty()) << "pages.jsonl was never synced after its first page";
  const nlohmann::json second = resume(s);
  EXPECT_EQ(second["crawl"]["stopped_by"], "done") << second.dump();
  EXPECT_GT(second["checkpoint"]["completed_without_outputs"].get<uint64_t>(), 0u) << second.dump();
  expect_every_page_recorded();
}

INSTANTIATE_TEST_SUITE_P(CrashAfter, PowerLossTest, ::testing::Values(uint64_t{15}, uint64_t{70}),
                         [](const ::testing::TestParamInfo<uint64_t>& info) {
                           return std::to_string(info.param) + "_pages";
                         });

}  // namespace
}  // namespace bloomcrawl
