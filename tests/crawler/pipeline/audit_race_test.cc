// --audit's count under the race between two parse workers admitting one URL (issue: phantom false
// positives). The seam: CrawlCheckpointer::audit_outcomes() is the second step of an admission, after
// the filter insert, so a test can run the two workers' steps in the order a race produces.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "crawler/persist/journal_records.h"
#include "crawler/pipeline/audit_report.h"
#include "crawler/pipeline/crawl_checkpointer.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawl_stats.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

class AuditRace : public ::testing::Test {
 protected:
  AuditRace() : filter_(settings_.filter), frontier_(settings_.frontier) {}
  // Each test's own output directory: the checkpointer opens its URL records store there, and two
  // tests sharing the default "crawl-out" of ctest's working directory race on it when run in parallel.
  static CrawlerSettings settings(const std::filesystem::path& dir) {
    CrawlerSettings s;
    s.audit = true;
    s.output_dir = dir;
    return s;
  }
  testing::TempDir dir_;
  CrawlerSettings settings_ = settings(dir_.path());
  SeenFilter filter_;
  Frontier frontier_;
  CrawlStats stats_;
  CrawlCheckpointer checkpointer_{settings_, filter_, frontier_, stats_, nullptr, nullptr, nullptr};
};

TEST_F(AuditRace, TheLosingWorkersSeenIsNotAFalsePositiveWhicheverAuditsFirst) {
  const std::string url = "http://a.test/shared.html";
  const std::vector<std::string_view> keys{url};
  std::vector<InsertOutcome> a(1);
  std::vector<InsertOutcome> b(1);
  filter_.insert_batch(keys, a);  // worker A's filter insert
  filter_.insert_batch(keys, b);  // worker B's, a moment later
  ASSERT_EQ(a[0], InsertOutcome::kNew);
  ASSERT_EQ(b[0], InsertOutcome::kSeen);
  JournalBatch batch;
  checkpointer_.audit_outcomes(keys, b, batch);  // B reaches the audit first
  checkpointer_.audit_outcomes(keys, a, batch);
  EXPECT_EQ(checkpointer_.audit_false_positives(), 0u);
  const nlohmann::json report = audit_report(*checkpointer_.audit(), 0.0);
  EXPECT_EQ(report["false_positives"], 0u);
  EXPECT_EQ(report["admitted_urls"], 1u);
  EXPECT_EQ(report["exact_urls"], 1u);
}

TEST_F(AuditRace, ARealFalsePositiveStillCounts) {
  const std::vector<std::string_view> keys{"http://a.test/never-admitted.html"};
  JournalBatch batch;
  checkpointer_.audit_outcomes(keys, {InsertOutcome::kSeen}, batch);  // "seen", and no "new" ever
  EXPECT_EQ(checkpointer_.audit_false_positives(), 1u);
}

TEST(AuditReport, ExpectedRangeIsThePoissonCentral95Percent) {
  EXPECT_EQ(poisson_range_95(0.0), (std::pair<uint64_t, uint64_t>{0, 0}));
  // qpois(0.025, 10) = 4, qpois(0.975, 10) = 17; qpois(0.025, 0.5) = 0, qpois(0.975, 0.5) = 2.
  EXPECT_EQ(poisson_range_95(10.0), (std::pair<uint64_t, uint64_t>{4, 17}));
  EXPECT_EQ(poisson_range_95(0.5), (std::pair<uint64_t, uint64_t>{0, 2}));
  // qpois(0.025, 430) = 390, qpois(0.975, 430) = 471.
  const auto [low, high] = poisson_range_95(430.0);
  EXPECT_NEAR(double(low), 390.0, 2.0);
  EXPECT_NEAR(double(high), 471.0, 2.0);
  const auto [big_low, big_high] = poisson_range_95(1e6);
  EXPECT_NEAR(double(big_low), 1e6 - 1960, 2.0);
  EXPECT_NEAR(double(big_high), 1e6 + 1960, 2.0);
}

}  // namespace
}  // namespace bloomcrawl
