// Compact mode when the disk says no (seenfilter/compact_layers.h): a background job that cannot
// write its key files, or a hash log append that fails, is an error, not a memory limit. The next
// insert throws CheckpointError naming it (never kFull, which a crawler drops keys on), every key
// recorded before is still found, and a failed job leaves a state a snapshot saves and a reload
// finishes once the disk takes writes again.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/data_error.h"
#include "seenfilter/compact_layers.h"
#include "seenfilter/shard_key_files.h"
#include "tests/seenfilter/url_keys.h"
#include "tests/support/faulty_file_system.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

SeenFilterOptions compact_options(const fs::path& dir) {
  SeenFilterOptions o;
  o.initial_capacity = 1000;
  o.target_fpr = 1e-6;
  o.hash_log = dir / "hashlog";
  return o;
}

// Inserts url_key(next), url_key(next + 1), ... in batches until one throws CheckpointError or
// `limit` keys are done; the keys that got kNew are appended to `recorded`. The error's text, or
// nullopt when nothing threw.
std::optional<std::string> insert_until_error(SeenFilter& filter, uint64_t& next, uint64_t limit,
                                              std::vector<uint64_t>& recorded) {
  constexpr size_t kBatch = 64;
  while (next < limit) {
    std::vector<std::string> keys;
    for (size_t i = 0; i < kBatch; ++i) keys.push_back(testing::url_key(next + i));
    const std::vector<std::string_view> views(keys.begin(), keys.end());
    std::vector<InsertOutcome> outcomes(kBatch);
    try {
      filter.insert_batch(views, outcomes);
    } catch (const CheckpointError& e) {
      return std::string(e.what());
    }
    for (size_t i = 0; i < kBatch; ++i) {
      EXPECT_NE(outcomes[i], InsertOutcome::kFull) << "an I/O failure is not a memory limit: " << filter.full_reason();
      if (outcomes[i] == InsertOutcome::kNew) recorded.push_back(next + i);
    }
    next += kBatch;
  }
  return std::nullopt;
}

TEST(CompactFailure, AJobThatCannotWriteItsKeyFilesMakesInsertsThrowAndAReloadFinishesIt) {
  testing::TempDir dir;
  // Regular files where the jobs' key-file directories go: every run build and merge fails, as
  // on a disk that refuses them.
  const fs::path run_dir = dir.path() / ("hashlog" + std::string(seenfilter::kRunKeyFilesSuffix));
  const fs::path merge_dir = dir.path() / ("hashlog" + std::string(seenfilter::kMergeKeyFilesSuffix));
  std::ofstream(run_dir).put('x');
  std::ofstream(merge_dir).put('x');

  auto filter = std::make_unique<SeenFilter>(compact_options(dir.path()));
  std::vector<uint64_t> recorded;
  uint64_t next = 0;
  std::optional<std::string> error = insert_until_error(*filter, next, 200'000, recorded);
  ASSERT_TRUE(error) << "no job ever ran";
  EXPECT_NE(error->find("hashlog"), std::string::npos) << *error;
  EXPECT_TRUE(filter->full());
  // Every insert from now on throws, and lookups still find every key recorded.
  uint64_t again = next;
  std::vector<uint64_t> none;
  EXPECT_TRUE(insert_until_error(*filter, again, again + 64, none));
  EXPECT_TRUE(none.empty());
  for (const uint64_t i : recorded) ASSERT_TRUE(filter->contains(testing::url_key(i))) << i;

  // The state a failed job leaves is saved whole, and loaded once the disk takes writes again
  // runs the job anew.
  const FilterSnapshot snap = filter->snapshot();
  filter.reset();
  fs::remove(run_dir);
  fs::remove(merge_dir);
  filter = std::make_unique<SeenFilter>(snap);
  for (const uint64_t i : recorded) ASSERT_TRUE(filter->contains(testing::url_key(i))) << i;
  uint64_t more = next + 64;
  EXPECT_FALSE(insert_until_error(*filter, more, more + 50'000, recorded));
  filter->compact_layers()->wait_for_rebuild();
  EXPECT_FALSE(filter->full()) << filter->full_reason();
  for (const uint64_t i : recorded) ASSERT_TRUE(filter->contains(testing::url_key(i))) << i;
}

TEST(CompactFailure, AFailedLogAppendMakesTheNextInsertAndSnapshotThrow) {
  testing::TempDir dir;
  SeenFilter filter(compact_options(dir.path()));
  std::vector<uint64_t> recorded;
  uint64_t next = 0;
  ASSERT_FALSE(insert_until_error(filter, next, 20'000, recorded));
  std::optional<std::string> error;
  {
    testing::FaultyFileSystem faulty;
    faulty.fail_write(1, ENOSPC);
    error = insert_until_error(filter, next, 400'000, recorded);
  }
  ASSERT_TRUE(error) << "the log was never written";
  EXPECT_NE(error->find("hash log write failed"), std::string::npos) << *error;
  EXPECT_THROW(filter.snapshot(), CheckpointError) << "a checkpoint would name keys the log lacks";
  std::vector<uint64_t> none;
  EXPECT_TRUE(insert_until_error(filter, next, next + 64, none));
  for (const uint64_t i : recorded) ASSERT_TRUE(filter.contains(testing::url_key(i))) << i;
}

}  // namespace
}  // namespace bloomcrawl
