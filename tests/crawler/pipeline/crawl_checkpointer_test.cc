// CrawlCheckpointer and a failing disk: a generation whose journal could not be made durable is
// not committed, and the failure is there for the crawl to see (last_failure(), the report).
#include "crawler/pipeline/crawl_checkpointer.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <string>

#include "crawler/persist/crawl_checkpoint.h"
#include "crawler/persist/journal_records.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawl_stats.h"
#include "tests/support/faulty_file_system.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

class CheckpointerOnAFailingDisk : public ::testing::Test {
 protected:
  CheckpointerOnAFailingDisk()
      : filter_(settings_.filter), frontier_(CrawlCheckpointer::make_frontier(settings_, nullptr)) {}
  static CrawlerSettings settings(const std::filesystem::path& dir) {
    CrawlerSettings s;
    s.checkpoint.directory = dir;
    s.checkpoint.journal.group_interval = std::chrono::hours(1);  // no background fdatasync
    s.checkpoint.config = nlohmann::json::object();
    return s;
  }

  testing::TempDir dir_;
  CrawlerSettings settings_ = settings(dir_.path());
  SeenFilter filter_;
  Frontier frontier_;
  CrawlStats stats_;
  CrawlCheckpointer checkpointer_{settings_, filter_, frontier_, stats_, nullptr, nullptr, nullptr};
  // A fresh crawl re-queues nothing, so it has nothing to refuse.
  static void no_refusal(std::string_view, std::string_view entry, uint32_t, AdmitResult) {
    ADD_FAILURE() << "unexpected refusal of " << entry;
  }
};

TEST_F(CheckpointerOnAFailingDisk, AGenerationWhoseJournalCannotSyncIsNotCommitted) {
  checkpointer_.start(no_refusal);  // generation 1, journal 1 open
  ASSERT_EQ(read_crawl_manifest(dir_.path()).generation, 1u);
  EXPECT_EQ(checkpointer_.last_failure(), "");
  testing::FaultyFileSystem faulty;
  // The final generation syncs journal 2, the one it opened, which must hold every key its filter
  // copy has beyond the cut.
  faulty.fail_data_syncs(EIO);
  checkpointer_.finish();
  const std::string failure = checkpointer_.last_failure();
  EXPECT_NE(failure.find("journal-000002.log: journal disabled: fdatasync failed"), std::string::npos) << failure;
  EXPECT_EQ(read_crawl_manifest(dir_.path()).generation, 1u) << "generation 1 stays current";
  const nlohmann::json report = checkpointer_.report();
  EXPECT_EQ(report["failed"], 1u);
  EXPECT_EQ(report["last_failure"], failure);
}

TEST_F(CheckpointerOnAFailingDisk, ADisabledJournalOfThePreviousGenerationDoesNotStopTheNext) {
  checkpointer_.start(no_refusal);
  testing::FaultyFileSystem faulty;
  faulty.fail_write(1, ENOSPC);
  // A dispatch is written at once (a completion would wait for the group commit): journal 1
  // disables itself.
  checkpointer_.on_page_dispatched(1, FrontierUrl{"http://a.test/", "a.test", 0}, "http://a.test/");
  ASSERT_NE(checkpointer_.failure(), "");
  checkpointer_.finish();  // generation 2 holds everything journal 1 was to add to generation 1
  EXPECT_EQ(checkpointer_.last_failure(), "");
  EXPECT_EQ(read_crawl_manifest(dir_.path()).generation, 2u);
}

}  // namespace
}  // namespace bloomcrawl
