// The disk frontier when its store fails (docs/frontier.md, "When the store fails"), through a
// RocksDB file system that fails writes, reads and links on cue (FaultyStoreFileSystem): the
// failure names the store's directory and is sticky, a push that throws has queued nothing and
// held no host, what needs no store write goes on, every URL queued is still listed, a cut of a
// failed store throws without deferring anything, and a damaged checkpoint is found when it is
// checked, before anything reads it.
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "base/data_error.h"
#include "frontier/frontier.h"
#include "tests/support/faulty_store_file_system.h"
#include "tests/support/frontier_testing.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using testing::FaultyStoreFileSystem;
using testing::kT0;
using testing::numbered;
using Op = FaultyStoreFileSystem::Op;

// Every URL waits on disk (a memory limit of one byte): each refill reads the store.
FrontierOptions store_options(const fs::path& store) {
  FrontierOptions options = testing::no_delay();
  options.store_directory = store.string();
  options.memory_limit_bytes = 1;
  return options;
}

std::set<std::string> listed_urls(const Frontier& frontier) {
  std::set<std::string> urls;
  frontier.for_each_queued([&](std::string_view, std::string_view url, uint32_t) { urls.emplace(url); });
  return urls;
}

// Pushes distinct URLs over 10 hosts until a push throws (the store's memtables fill, their
// flush fails, the next batch write is refused); returns the error and fills `queued` with every
// URL a push accepted.
std::string push_until_failure(Frontier& frontier, std::set<std::string>* queued) {
  for (int i = 0; i < 200000; ++i) {
    const std::string url = numbered("https://example.com/a-long-enough-path/to-fill-the-memtable/page", i);
    try {
      frontier.push(numbered("h", i % 10), url, 1);
    } catch (const CheckpointError& e) {
      return e.what();
    }
    queued->insert(url);
  }
  return "no failure";
}

class StoreFaultTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
  const fs::path live_ = dir_.path() / "live";
  testing::StoreFaults faults_;
};

TEST_F(StoreFaultTest, AFailedWriteIsStickyNamesTheDirectoryAndLosesNoQueuedUrl) {
  Frontier frontier(store_options(live_));
  std::set<std::string> queued;
  for (int i = 0; i < 3; ++i) {  // one host each: one request per host at a time
    frontier.push(numbered("early", i), numbered("https://early/", i), 0);
    queued.insert(numbered("https://early/", i));
  }
  std::vector<Lease> leases;
  for (int i = 0; i < 3; ++i) {
    std::optional<Lease> lease = frontier.pop_ready(kT0);
    ASSERT_TRUE(lease);
    queued.erase(lease->entry.url);
    leases.push_back(*lease);
  }
  faults_->fail(Op::kWrite, live_.string(), 1, ENOSPC, /*every_later=*/true);  // a full disk
  const std::string error = push_until_failure(frontier, &queued);
  EXPECT_NE(error.find(live_.string() + ": frontier store: "), std::string::npos) << error;
  EXPECT_NE(error.find("No space left on device"), std::string::npos) << error;
  EXPECT_EQ(frontier.failure(), error);

  // Sticky: the next push is refused with the same error, before RocksDB is asked.
  const uint64_t queued_before = frontier.stats(false).queued;
  try {
    frontier.push("late", "https://late/", 0);
    ADD_FAILURE() << "a push to a failed store was accepted";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(std::string(e.what()), error);
  }
  EXPECT_EQ(frontier.stats(false).queued, queued_before);

  // What needs no store write goes on: the leases in flight complete.
  for (const Lease& lease : leases) EXPECT_NO_THROW(frontier.complete(lease, kT0, HostOutcome::ok()));
  // Every URL accepted is still listed, from the store and the batch its failed write kept.
  faults_->clear();
  EXPECT_EQ(listed_urls(frontier), queued);
  EXPECT_EQ(frontier.stats(false).queued, queued.size());
}

TEST_F(StoreFaultTest, APushThatFailsLeavesNoHostItCreatedHeld) {
  FrontierOptions options = store_options(live_);
  options.hold_new_hosts = true;
  Frontier frontier(options);
  faults_->fail(Op::kWrite, live_.string(), 1, EIO, /*every_later=*/true);
  std::set<std::string> queued;
  push_until_failure(frontier, &queued);
  const std::vector<std::string> held_before = frontier.held_hosts();
  EXPECT_THROW(frontier.push("new.example", "https://new.example/", 0), CheckpointError);
  EXPECT_EQ(frontier.held_hosts(), held_before) << "the host a failed push created is held for good";
}

TEST_F(StoreFaultTest, AReadFailureAtARefillLeavesTheQueueAsItWas) {
  Frontier frontier(store_options(live_));
  std::set<std::string> queued;
  for (int i = 0; i < 100; ++i) {
    frontier.push("h", numbered("https://h/", i), 1);
    queued.insert(numbered("https://h/", i));
  }
  frontier.checkpoint(dir_.path() / "gen");  // the URLs are in a table file now, not the memtable
  faults_->fail(Op::kRead, live_.string() + "/", 1, EIO, /*every_later=*/true);
  try {
    frontier.pop_ready(kT0);
    ADD_FAILURE() << "a refill read nothing and said nothing";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find(live_.string()), std::string::npos) << e.what();
  }
  EXPECT_GT(faults_->failures(), 0);
  EXPECT_EQ(frontier.stats(false).queued, 100u);
  EXPECT_EQ(frontier.stats(false).in_flight, 0u);
  EXPECT_THROW(frontier.pop_ready(kT0), CheckpointError);  // sticky, even with the disk healed
  faults_->clear();
  EXPECT_EQ(listed_urls(frontier), queued);
}

TEST_F(StoreFaultTest, ACutOfAFailedStoreThrowsAndDefersNoDelete) {
  Frontier frontier(store_options(live_));
  frontier.push("early", "https://early/", 0);
  std::optional<Lease> lease = frontier.pop_ready(kT0);
  ASSERT_TRUE(lease);
  faults_->fail(Op::kWrite, live_.string(), 1, ENOSPC, /*every_later=*/true);
  std::set<std::string> queued;
  const std::string error = push_until_failure(frontier, &queued);
  try {
    frontier.cut_checkpoint();
    ADD_FAILURE() << "a cut of a failed store";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(std::string(e.what()), error);
  }
  frontier.complete(*lease, kT0, HostOutcome::ok());
  faults_->clear();
  const std::set<std::string> listed = listed_urls(frontier);
  EXPECT_FALSE(listed.contains("https://early/")) << "the completed lease's delete was deferred, not applied";
  EXPECT_EQ(listed, queued);
}

TEST_F(StoreFaultTest, AFailedStoreCopyFailsTheCheckpointNamingTheFile) {
  Frontier frontier(store_options(live_));
  for (int i = 0; i < 2000; ++i) frontier.push(numbered("h", i % 10), numbered("https://example.com/page", i), 1);
  faults_->fail(Op::kLink, "gen", 1, EIO);
  try {
    frontier.checkpoint(dir_.path() / "gen");
    ADD_FAILURE() << "a checkpoint without its table file";
  } catch (const CheckpointError& e) {
    const std::string error = e.what();
    EXPECT_NE(error.find(live_.string() + ": frontier store: "), std::string::npos) << error;
    EXPECT_NE(error.find((dir_.path() / "gen" / "store").string()), std::string::npos) << error;
  }
  EXPECT_EQ(faults_->failures(), 1);
  EXPECT_EQ(frontier.stats(false).queued, 2000u);
}

std::vector<fs::path> table_files(const fs::path& gen) {
  std::vector<fs::path> tables;
  for (const fs::directory_entry& entry : fs::directory_iterator(gen / "store")) {
    if (entry.path().extension() == ".sst") tables.push_back(entry.path());
  }
  return tables;
}

std::set<std::string> directory_listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(dir)) {
    names.insert(entry.path().string() + " " + std::to_string(entry.is_regular_file() ? entry.file_size() : 0));
  }
  return names;
}

TEST_F(StoreFaultTest, CheckingACheckpointReadsEveryBlockAndWritesNothing) {
  const fs::path gen = dir_.path() / "gen";
  {
    Frontier frontier(store_options(live_));
    for (int i = 0; i < 2000; ++i) frontier.push(numbered("h", i % 10), numbered("https://example.com/page", i), 1);
    frontier.checkpoint(gen);
  }
  const std::vector<fs::path> tables = table_files(gen);
  ASSERT_FALSE(tables.empty());
  const std::set<std::string> before = directory_listing(gen);
  EXPECT_NO_THROW(Frontier::check_checkpoint(gen));
  EXPECT_EQ(directory_listing(gen), before) << "checking a checkpoint changed it";

  // An unreadable block: found by the check, not at the first scan after a resume.
  faults_->fail(Op::kRead, tables.front().filename().string(), 3, EIO, /*every_later=*/true);
  try {
    Frontier::check_checkpoint(gen);
    ADD_FAILURE() << "an unreadable table file passed the check";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(tables.front().filename().string()), std::string::npos) << e.what();
  }
  faults_->clear();

  // A block whose bytes changed on disk (a new file: the checkpoint's are hard links).
  testing::corrupt_store_file(tables.front());
  try {
    Frontier::check_checkpoint(gen);
    ADD_FAILURE() << "a corrupted table file passed the check";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(tables.front().filename().string()), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace bloomcrawl
