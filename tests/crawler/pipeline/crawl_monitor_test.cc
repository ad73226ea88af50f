// CrawlMonitor: the status file is there from start(), rewritten each interval with what the crawl
// samples, and says done or stopped at the end; report.json is rewritten each report interval
// while the crawl runs; a directory that cannot take the file does not stop anything.
#include "crawler/pipeline/crawl_monitor.h"

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>

#include <gtest/gtest.h>

#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

// What the monitor samples, counting the calls so a test can wait for the nth.
class FakeCrawl {
 public:
  CrawlStatus sample() {
    std::lock_guard<std::mutex> lock(mu_);
    CrawlStatus s;
    s.pages = s.pages_this_run = uint64_t{10} * ++samples_;
    s.queued = 7;
    cv_.notify_all();
    return s;
  }
  nlohmann::json report() {
    std::lock_guard<std::mutex> lock(mu_);
    ++reports_;
    cv_.notify_all();
    return {{"crawl", {{"running", true}}}, {"reports", reports_}};
  }
  // Waits (up to 10 s, a failure) until sample() has run `samples` times and report() `reports` times.
  bool wait_for(int samples, int reports) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return samples_ >= samples && reports_ >= reports; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int samples_ = 0;
  int reports_ = 0;
};

class CrawlMonitorTest : public ::testing::Test {
 protected:
  std::unique_ptr<CrawlMonitor> monitor(CrawlMonitor::Options o) {
    return std::make_unique<CrawlMonitor>(
        std::move(o), [this] { return crawl_.sample(); }, [this] { return crawl_.report(); });
  }
  testing::TempDir temp_;
  FakeCrawl crawl_;
};

TEST_F(CrawlMonitorTest, StatusFromTheStartEachIntervalAndAtTheEnd) {
  const fs::path out = temp_.path() / "out";
  const fs::path ckpt = temp_.path() / "ckpt";
  auto m = monitor({.status_directories = {out, ckpt, out}, .status_interval = milliseconds(10)});
  m->start();
  const CrawlStatus first = read_status_file(out);
  EXPECT_EQ(first.state, "running");
  EXPECT_EQ(first.stopped_by, "");
  EXPECT_EQ(first.pid, ::getpid());
  EXPECT_EQ(first.pages, 10u);
  EXPECT_EQ(writer_alive(first), true);
  ASSERT_TRUE(crawl_.wait_for(3, 0));
  m->finish("signal");
  const CrawlStatus last = read_status_file(ckpt);
  EXPECT_EQ(last.state, "stopped");
  EXPECT_EQ(last.stopped_by, "signal");
  EXPECT_GE(last.pages, 40u) << "sampled at start, at least twice by the thread, and at the end";
  EXPECT_EQ(last.queued, 7u);
  EXPECT_EQ(last.started_at, first.started_at);
  EXPECT_GE(last.updated_unix_ms, first.updated_unix_ms);
  EXPECT_EQ(read_status_file(out).pages, last.pages) << "every directory gets the same status";
}

TEST_F(CrawlMonitorTest, APageLimitIsDone) {
  auto m = monitor({.status_directories = {temp_.path()}});
  m->start();
  m->finish("page_limit");
  EXPECT_EQ(read_status_file(temp_.path()).state, "done");
  EXPECT_EQ(read_status_file(temp_.path()).stopped_by, "page_limit");
}

TEST_F(CrawlMonitorTest, ReportRewrittenEachIntervalWhileRunning) {
  const fs::path report = temp_.path() / "report.json";
  auto m = monitor({.status_directories = {temp_.path()},
                    .report_path = report,
                    .report_interval = milliseconds(10),
                    .status_interval = milliseconds(10)});
  m->start();
  ASSERT_TRUE(crawl_.wait_for(0, 2));
  m->finish("done");  // the thread is stopped: its last report is complete
  const nlohmann::json written = nlohmann::json::parse(std::ifstream(report));
  EXPECT_EQ(written["crawl"]["running"], true);
  EXPECT_GE(written["reports"].get<int>(), 2);
  EXPECT_FALSE(fs::exists(temp_.path() / "report.json.tmp"));
}

TEST_F(CrawlMonitorTest, NoReportWithAZeroInterval) {
  const fs::path report = temp_.path() / "report.json";
  auto m = monitor({.status_directories = {temp_.path()}, .report_path = report, .status_interval = milliseconds(5)});
  m->start();
  ASSERT_TRUE(crawl_.wait_for(3, 0));
  m->finish("done");
  EXPECT_FALSE(fs::exists(report));
}

TEST_F(CrawlMonitorTest, ADirectoryThatCannotTakeTheStatusStopsNothing) {
  const fs::path not_a_dir = temp_.path() / "file";
  std::ofstream(not_a_dir) << "x";
  const fs::path good = temp_.path() / "good";
  auto m = monitor({.status_directories = {not_a_dir, good}, .status_interval = milliseconds(5)});
  m->start();
  ASSERT_TRUE(crawl_.wait_for(3, 0));
  m->finish("error");
  EXPECT_EQ(read_status_file(good).state, "stopped");
}

}  // namespace
}  // namespace bloomcrawl
