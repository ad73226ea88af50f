// The hash log: keys come back in order (from any first key), a torn tail (a kill mid-append) is skipped, a writer for
// a loaded checkpoint cuts the log to the keys it covers, and a failed write leaves the log readable.
#include "seenfilter/hash_log.h"

#include <gtest/gtest.h>

#include <fstream>
#include <numeric>
#include <vector>

#include "base/data_error.h"
#include "tests/support/faulty_file_system.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl::seenfilter {
namespace {

std::vector<uint64_t> sequence(uint64_t from, size_t n) {
  std::vector<uint64_t> out(n);
  std::iota(out.begin(), out.end(), from);
  return out;
}

std::vector<uint64_t> read_all(const std::filesystem::path& path, HashLogContents* contents = nullptr) {
  std::vector<uint64_t> out;
  const HashLogContents c = read_hash_log(
      path, [&](std::span<const uint64_t> hashes) { out.insert(out.end(), hashes.begin(), hashes.end()); });
  if (contents != nullptr) *contents = c;
  EXPECT_EQ(c.keys, out.size());
  return out;
}

// Opens the log keeping its first `keep` keys, appends each of `records` as a record of its own,
// and syncs.
void append_records(const std::filesystem::path& path, uint64_t keep,
                    const std::vector<std::vector<uint64_t>>& records) {
  HashLogWriter writer(path, keep);
  for (const std::vector<uint64_t>& record : records) {
    writer.append(record);
    writer.flush();
  }
  writer.sync();
}

TEST(HashLog, KeysComeBackInOrderAcrossRecords) {
  bloomcrawl::testing::TempDir dir;
  const auto path = dir.path() / "hashlog";
  const std::vector<uint64_t> keys = sequence(1, kMaxHashLogRecordKeys * 2 + 17);
  {
    HashLogWriter writer(path, 0);
    writer.append(std::span(keys).first(100));
    writer.append(std::span(keys).subspan(100));
    EXPECT_EQ(writer.keys(), keys.size());
    writer.sync();
  }
  HashLogContents contents;
  EXPECT_EQ(read_all(path, &contents), keys);
  EXPECT_FALSE(contents.torn_tail);
  EXPECT_EQ(contents.valid_bytes, std::filesystem::file_size(path));
  // The in-memory decoder agrees with the streaming reader.
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint64_t decoded = 0;
  EXPECT_EQ(decode_hash_log(bytes, "log", [&](std::span<const uint64_t> h) { decoded += h.size(); }).keys, keys.size());
  EXPECT_EQ(decoded, keys.size());
}

// A run's build reads the log from where the runs end: whole records before it are skipped, and
// the record it falls in is visited from it on.
TEST(HashLog, ReadsFromAFirstKeyAtOrInsideARecord) {
  bloomcrawl::testing::TempDir dir;
  const auto path = dir.path() / "hashlog";
  append_records(path, 0, {sequence(0, 100), sequence(100, 50), sequence(150, 70)});
  for (const uint64_t first : {uint64_t{0}, uint64_t{99}, uint64_t{100}, uint64_t{120}, uint64_t{150}, uint64_t{219},
                               uint64_t{220}, uint64_t{300}}) {
    std::vector<uint64_t> got;
    const HashLogContents c = read_hash_log(
        path, [&](std::span<const uint64_t> hashes) { got.insert(got.end(), hashes.begin(), hashes.end()); }, first);
    EXPECT_EQ(got, sequence(first, first < 220 ? 220 - first : 0)) << "from " << first;
    EXPECT_EQ(c.keys, 220u);
    EXPECT_FALSE(c.torn_tail);
  }
}

TEST(HashLog, TornTailIsSkippedAndCutOnReopen) {
  bloomcrawl::testing::TempDir dir;
  const auto path = dir.path() / "hashlog";
  append_records(path, 0, {sequence(1, 10), sequence(11, 10)});
  const uint64_t full = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, full - 3);  // the second record torn
  HashLogContents contents;
  EXPECT_EQ(read_all(path, &contents), sequence(1, 10));
  EXPECT_TRUE(contents.torn_tail);
  append_records(path, 10, {sequence(100, 5)});  // a checkpoint that covered the first record
  std::vector<uint64_t> expected = sequence(1, 10);
  const std::vector<uint64_t> more = sequence(100, 5);
  expected.insert(expected.end(), more.begin(), more.end());
  EXPECT_EQ(read_all(path, &contents), expected);
  EXPECT_FALSE(contents.torn_tail);
}

TEST(HashLog, WriterCutsToTheCheckpointsKeysEvenMidRecord) {
  bloomcrawl::testing::TempDir dir;
  const auto path = dir.path() / "hashlog";
  append_records(path, 0, {sequence(1, 50)});
  {
    HashLogWriter writer(path, 30);
    EXPECT_EQ(writer.keys(), 30u);
    writer.append(sequence(500, 2));
    writer.sync();
  }
  std::vector<uint64_t> expected = sequence(1, 30);
  expected.push_back(500);
  expected.push_back(501);
  EXPECT_EQ(read_all(path), expected);
  HashLogWriter writer(path, 0);
  EXPECT_EQ(writer.keys(), 0u);
}

TEST(HashLog, MissingOrShortLogIsAnError) {
  bloomcrawl::testing::TempDir dir;
  EXPECT_THROW(HashLogWriter(dir.path() / "absent", 5), CheckpointError);
  const auto path = dir.path() / "hashlog";
  {
    HashLogWriter writer(path, 0);
    writer.append(sequence(1, 4));
  }  // destroyed without flush: nothing past the header is promised
  EXPECT_THROW(HashLogWriter(path, 5), CheckpointError);
  std::ofstream(dir.path() / "garbage") << "not a hash log at all";
  EXPECT_THROW(read_all(dir.path() / "garbage"), CheckpointError);
}

TEST(HashLog, FailedWriteLeavesEarlierRecordsReadable) {
  bloomcrawl::testing::TempDir dir;
  const auto path = dir.path() / "hashlog";
  HashLogWriter writer(path, 0);
  writer.append(sequence(1, 8));
  writer.sync();
  {
    bloomcrawl::testing::FaultyFileSystem faulty;
    faulty.fail_write(1, ENOSPC);
    writer.append(sequence(9, 8));
    EXPECT_THROW(writer.flush(), CheckpointError);
  }
  EXPECT_EQ(read_all(path), sequence(1, 8));
}

}  // namespace
}  // namespace bloomcrawl::seenfilter
