// No silent loss (docs/outcomes.md), end to end against the local test web: every URL the seen
// filter admits ends as exactly one record of pages.jsonl, whose outcome says what became of it,
// and the report's counts are those records. Then a full disk at each output in turn (pages.jsonl,
// edges, WARC, journal, checkpoint): the crawl stops saying why, and a resume after space is freed
// ends with a record for every page of the ground truth. In process, so TSan sees every thread.
#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/persist/crawl_checkpoint.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/full_disk_file_system.h"
#include "tests/support/stopped_crawl.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_web.h"
#include "tests/support/test_web_config.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using testweb::TestWeb;
using testweb::TestWebOptions;

class NoLossTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TestWebOptions o;
    o.trap = false;  // only a depth limit ends the trap
    web_ = std::make_unique<TestWeb>(o);
    web_->start();
  }
  void TearDown() override { web_->stop(); }

  fs::path out() const { return dir_ / "out"; }

  CrawlConfig config() const {
    CrawlConfig c;
    c.seeds.urls = {web_->seed_url()};
    c.scope.allowed_hosts = web_->options().hosts;
    c.scope.max_depth = -1;
    c.politeness.delay_ms = 0;
    c.politeness.concurrency_per_host = 4;
    c.fetch.allowed_ranges = {"127.0.0.0/8"};
    c.fetch.connect_timeout_ms = 5000;
    c.fetch.total_timeout_ms = 20000;
    c.seen_filter.initial_capacity = 1000;
    c.output.directory = out().string();
    return c;
  }

  static CrawlerSettings settings(const CrawlConfig& c) {
    validate_config(c);
    CrawlerSettings s = settings_from_config(c);
    s.parse_threads = 2;
    return s;
  }

  // Checkpointed every few pages, as `bloomcrawl crawl` would set it up.
  CrawlerSettings checkpointed(CrawlConfig c) const {
    c.checkpoint.directory = (dir_ / "ckpt").string();
    c.checkpoint.interval_pages = 20;
    CrawlerSettings s = testing::checkpointed_settings(c);
    s.parse_threads = 2;
    return s;
  }

  // Every line of pages.jsonl, each a whole JSON record.
  std::vector<nlohmann::json> records() const {
    std::vector<nlohmann::json> out_records;
    std::ifstream in(out() / "pages.jsonl");
    for (std::string line; std::getline(in, line);) {
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      EXPECT_FALSE(j.is_discarded()) << "a torn record: " << line;
      if (!j.is_discarded()) out_records.push_back(std::move(j));
    }
    return out_records;
  }

  static std::map<std::string, uint64_t> records_per_url(const std::vector<nlohmann::json>& records) {
    std::map<std::string, uint64_t> n;
    for (const nlohmann::json& r : records) ++n[r["url"].get<std::string>()];
    return n;
  }

  // The rule: one record per URL admitted (links.new), and the report counts those records.
  static void expect_one_record_per_admitted_url(const nlohmann::json& report,
                                                 const std::vector<nlohmann::json>& records) {
    std::map<std::string, uint64_t> by_outcome;
    for (const nlohmann::json& r : records) ++by_outcome[r["outcome"].get<std::string>()];
    for (const auto& [url, n] : records_per_url(records)) EXPECT_EQ(n, 1u) << url << " has " << n << " records";
    EXPECT_EQ(report["links"]["new"].get<uint64_t>(), records.size());
    EXPECT_EQ(report["outcomes"]["records"].get<uint64_t>(), records.size());
    using Counts = std::map<std::string, uint64_t>;
    EXPECT_EQ(report["outcomes"]["by_outcome"].get<Counts>(), by_outcome);
  }

  // A resume with `c` of the crawl checkpointed by `limited`: it ends done, with the whole ground
  // truth fetched, no page twice and one record per URL.
  void expect_resume_fetches_the_ground_truth_once(const CrawlConfig& c, const CrawlerSettings& limited) {
    nlohmann::json report =
        Crawler(checkpointed(c), std::make_unique<CrawlCheckpoint>(load_crawl_checkpoint(limited.checkpoint.directory)))
            .run();
    EXPECT_EQ(report["crawl"]["stopped_by"], "done");
    const std::vector<nlohmann::json> all = records();
    expect_one_record_per_admitted_url(report, all);
    std::set<std::string> fetched;
    for (const nlohmann::json& r : all) {
      if (r["status"].get<long>() != 0) fetched.insert(r["url"].get<std::string>());
    }
    const std::vector<std::string> truth = web_->ground_truth(web_->site_depth());
    EXPECT_EQ(fetched, std::set<std::string>(truth.begin(), truth.end()));
    EXPECT_EQ(web_->summary().duplicate_fetches, 0u);
  }

  // A test web slow enough that a crawl outlasts run_and_stop_after() (a new port: call it first).
  void use_slow_web() {
    web_->stop();
    TestWebOptions o;
    o.trap = false;
    o.response_delay = std::chrono::milliseconds(100);
    web_ = std::make_unique<TestWeb>(o);
    web_->start();
  }

  // A crawl stopped as by Ctrl-C at the server's `pages`-th page request (not after a guessed
  // time).
  nlohmann::json run_and_stop_after(const CrawlerSettings& s, size_t pages) {
    bool fetching = false;
    nlohmann::json report = testing::crawl_then_stop(s, *web_, pages, &fetching);
    EXPECT_TRUE(fetching);
    return report;
  }

  testing::TempDir temp_;
  const fs::path dir_ = temp_.path();
  std::unique_ptr<TestWeb> web_;
};

TEST_F(NoLossTest, MaxQueuedPerHostDropsAreRecordedPerUrl) {
  CrawlConfig c = config();
  c.scope.max_queued_per_host = 3;
  c.politeness.concurrency_per_host = 1;
  nlohmann::json report = Crawler(settings(c)).run();
  EXPECT_EQ(report["crawl"]["stopped_by"], "done");
  const std::vector<nlohmann::json> all = records();
  expect_one_record_per_admitted_url(report, all);
  const uint64_t dropped = report["outcomes"]["by_outcome"].value("max_queued_per_host", uint64_t{0});
  EXPECT_GT(dropped, 0u) << "the limit never bit: the test proves nothing";
  EXPECT_EQ(dropped, report["links"]["refused_by_reason"]["host_queue_full"].get<uint64_t>());
  for (const nlohmann::json& r : all) {
    if (r["outcome"] == "max_queued_per_host") {
      EXPECT_EQ(r["status"], 0) << r.dump();
    }
  }
  EXPECT_EQ(web_->summary().duplicate_fetches, 0u);
}

TEST_F(NoLossTest, UnlimitedByDefaultTheWholeGroundTruthIsFetchedOnce) {
  nlohmann::json report = Crawler(settings(config())).run();
  EXPECT_EQ(report["crawl"]["stopped_by"], "done");
  const std::vector<nlohmann::json> all = records();
  expect_one_record_per_admitted_url(report, all);
  std::set<std::string> fetched;
  for (const nlohmann::json& r : all) {
    if (r["status"].get<long>() != 0) fetched.insert(r["url"].get<std::string>());
  }
  const std::vector<std::string> truth = web_->ground_truth(web_->site_depth());
  EXPECT_EQ(fetched, std::set<std::string>(truth.begin(), truth.end()));
  EXPECT_EQ(report["links"]["refused_by_frontier"], 0);
}

// config/README.md scope.max_pages: without a checkpoint, the URLs past the limit end as they
// would at a Ctrl-C, each recorded not_fetched_at_stop.
TEST_F(NoLossTest, PageLimitWithoutCheckpointRecordsTheRestAsNotFetchedAtStop) {
  CrawlConfig c = config();
  c.scope.max_pages = 15;
  nlohmann::json report = Crawler(settings(c)).run();
  EXPECT_EQ(report["crawl"]["stopped_by"], "page_limit");
  EXPECT_EQ(web_->summary().page_requests, 15u);
  const std::vector<nlohmann::json> all = records();
  expect_one_record_per_admitted_url(report, all);
  EXPECT_GT(report["outcomes"]["by_outcome"].value("not_fetched_at_stop", uint64_t{0}), 0u);
}

// config/README.md scope.max_pages: a crawl stopped by the limit keeps the URLs past it queued in
// its checkpoint, and a resume without the limit fetches them: the whole ground truth, no page
// fetched twice, one record per URL.
TEST_F(NoLossTest, PageLimitThenAResumeWithoutItFetchesTheGroundTruthOnce) {
  CrawlConfig c = config();
  c.scope.max_pages = 15;
  const CrawlerSettings limited = checkpointed(c);
  nlohmann::json first = Crawler(limited).run();
  EXPECT_EQ(first["crawl"]["stopped_by"], "page_limit");
  EXPECT_EQ(web_->summary().page_requests, 15u);
  c.scope.max_pages = 0;
  expect_resume_fetches_the_ground_truth_once(c, limited);
}

// Without a checkpoint nothing keeps the queue after a stop: each URL still queued, or fetched
// and cancelled, is recorded as not fetched.
TEST_F(NoLossTest, StopWithoutCheckpointRecordsEveryUrlNotFetched) {
  use_slow_web();
  const nlohmann::json report = run_and_stop_after(settings(config()), 8);
  EXPECT_EQ(report["crawl"]["stopped_by"], "signal");
  const std::vector<nlohmann::json> all = records();
  expect_one_record_per_admitted_url(report, all);
  EXPECT_GT(report["outcomes"]["by_outcome"].value("not_fetched_at_stop", uint64_t{0}), 0u);
}

// config/README.md scope.max_pages_per_host: a crawl that ends with only hosts at their limit
// keeps the rest queued in its checkpoint, and a resume without the limit fetches it: the ground
// truth, no page twice, one record per URL.
TEST_F(NoLossTest, APerHostPageLimitKeepsTheRestQueuedForAResumeWithoutIt) {
  CrawlConfig c = config();
  c.scope.max_pages_per_host = 5;
  const CrawlerSettings limited = checkpointed(c);
  nlohmann::json first = Crawler(limited).run();
  EXPECT_EQ(first["crawl"]["stopped_by"], "page_limit");
  std::map<std::string, uint64_t> per_host;
  for (const auto& r : web_->requests()) per_host[r.host] += r.robots_txt ? 0 : 1;
  for (const auto& [host, pages] : per_host) EXPECT_LE(pages, 5u) << host;
  c.scope.max_pages_per_host = 0;
  expect_resume_fetches_the_ground_truth_once(c, limited);
}

struct DiskFull {
  const char* output;     // names the test
  const char* path_part;  // the files that fill up
  int after_writes;       // successful writes to them before the disk is full
  bool exact;             // false: the resume is a crash's (the last checkpoint and the journal), so a page
                          // processed after the failure may be fetched and recorded again
  bool edges = false;
  bool warc = false;
  uint64_t max_queued_per_host = 0;  // with 1, most links are refused: the disk fills at a refusal's record
};

void PrintTo(const DiskFull& d, std::ostream* os) { *os << d.output; }

class DiskFullTest : public NoLossTest, public ::testing::WithParamInterface<DiskFull> {};

TEST_P(DiskFullTest, StopsSayingWhyAndAResumeRecordsEveryPage) {
  const DiskFull& p = GetParam();
  CrawlConfig c = config();
  c.output.edges = p.edges;
  c.output.warc.enabled = p.warc;
  c.scope.max_queued_per_host = p.max_queued_per_host;
  const CrawlerSettings s = checkpointed(c);
  testing::FullDiskFileSystem disk;
  disk.fill(p.path_part, p.after_writes);
  nlohmann::json first = Crawler(s).run();
  ASSERT_EQ(first["crawl"]["stopped_by"], "error") << "the disk never filled: the test proves nothing";
  const std::string error = first["crawl"]["error"].get<std::string>();
  EXPECT_NE(error.find(p.path_part), std::string::npos) << error;
  EXPECT_NE(error.find("No space left on device"), std::string::npos) << error;
  EXPECT_GT(disk.failed_writes(), 0);

  disk.clear();
  nlohmann::json second =
      Crawler(s, std::make_unique<CrawlCheckpoint>(load_crawl_checkpoint(s.checkpoint.directory))).run();
  EXPECT_EQ(second["crawl"]["stopped_by"], "done");
  EXPECT_FALSE(second["crawl"].contains("error"));
  const std::vector<nlohmann::json> all = records();
  const std::map<std::string, uint64_t> per_url = records_per_url(all);
  // A queue limit refuses links whose pages would have led to the rest of the site.
  if (p.max_queued_per_host == 0) {
    for (const std::string& url : web_->ground_truth(web_->site_depth())) {
      EXPECT_TRUE(per_url.contains(url)) << url << " has no record";
    }
  }
  if (p.exact) expect_one_record_per_admitted_url(second, all);
}

INSTANTIATE_TEST_SUITE_P(EachOutput, DiskFullTest,
                         ::testing::Values(DiskFull{"pages", "pages.jsonl", 40, true},
                                           DiskFull{"pages_at_a_refusal", "pages.jsonl", 40, true, false, false, 1},
                                           DiskFull{"warc", "out/warc/", 30, true, false, true},
                                           DiskFull{"edges", "edges.jsonl", 1, true, true},
                                           DiskFull{"journal", "journal-", 60, false},
                                           DiskFull{"checkpoint", "frontier-", 2, false}),
                         [](const ::testing::TestParamInfo<DiskFull>& info) { return std::string(info.param.output); });

}  // namespace
}  // namespace bloomcrawl
