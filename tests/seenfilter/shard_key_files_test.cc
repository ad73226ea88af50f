// ShardKeyFiles (seenfilter/shard_key_files.h): a job's keys by shard, and the key cache a merge
// keeps: each shard's file holds exactly its log keys (rotated), the cache is reopened only for
// the keys and shard count it covers, a killed merge's appends are cut back, and lost or damaged
// keys are refused, never read as keys.
#include "seenfilter/shard_key_files.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "base/data_error.h"
#include "seenfilter/hash_log.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl::seenfilter {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kBits = 3;

std::vector<uint64_t> write_log(const fs::path& path, size_t keys) {
  std::mt19937_64 rng(11);
  std::vector<uint64_t> hashes(keys);
  for (uint64_t& h : hashes) h = rng();
  HashLogWriter log(path, 0);
  log.append(hashes);
  log.flush();
  return hashes;
}

// The log keys [first, upto) of shard s, as its file holds them, sorted.
std::vector<uint64_t> expected_keys(const std::vector<uint64_t>& log, size_t first, size_t upto, uint32_t s) {
  std::vector<uint64_t> keys;
  for (size_t i = first; i < upto; ++i) {
    if (log[i] >> (64 - kBits) == s) keys.push_back(std::rotl(log[i], kBits));
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<uint64_t> read_sorted(const ShardKeyFiles& files, uint32_t s) {
  std::vector<uint64_t> keys;
  EXPECT_TRUE(files.read(s, keys)) << "shard " << s;
  std::sort(keys.begin(), keys.end());
  return keys;
}

// The shard's keys as read_in_chunks streams them through a chunk of `chunk_keys`, or nullopt when
// it refuses them.
std::optional<std::vector<uint64_t>> read_in_chunks(const ShardKeyFiles& files, uint32_t s, size_t chunk_keys) {
  std::vector<uint64_t> chunk(chunk_keys);
  std::vector<uint64_t> keys;
  const bool read = files.read_in_chunks(s, chunk, [&](std::span<const uint64_t> piece) {
    EXPECT_LE(piece.size(), chunk_keys);
    keys.insert(keys.end(), piece.begin(), piece.end());
  });
  if (!read) return std::nullopt;
  return keys;
}

class ShardKeyFilesTest : public ::testing::Test {
 protected:
  bloomcrawl::testing::TempDir dir_;
  fs::path log_ = dir_.path() / "hashlog";
  fs::path keys_ = dir_.path() / "hashlog.keys";
  std::vector<uint64_t> hashes_ = write_log(log_, 5000);
};

TEST_F(ShardKeyFilesTest, EachShardHoldsItsLogKeys) {
  ShardKeyFiles files = ShardKeyFiles::fresh(keys_, kBits);
  files.append_from_log(log_, 1000, 4000, 64);
  EXPECT_EQ(files.covered(), 4000u);
  for (uint32_t s = 0; s < (1u << kBits); ++s) {
    EXPECT_EQ(read_sorted(files, s), expected_keys(hashes_, 1000, 4000, s)) << "shard " << s;
    EXPECT_EQ(files.keys(s), expected_keys(hashes_, 1000, 4000, s).size());
  }
  EXPECT_THROW(files.append_from_log(log_, 4000, 6000, 64), CheckpointError) << "the log holds 5000 keys";
}

// A streamed build reads a shard through a chunk: the same keys in the same order as read(), in
// chunks of one key, of a few, and of more than the shard holds.
TEST_F(ShardKeyFilesTest, AShardReadInChunksHoldsTheKeysReadWhole) {
  ShardKeyFiles files = ShardKeyFiles::fresh(keys_, kBits);
  files.append_from_log(log_, 0, 5000, 64);
  for (uint32_t s = 0; s < (1u << kBits); ++s) {
    std::vector<uint64_t> whole;
    ASSERT_TRUE(files.read(s, whole));
    for (const size_t chunk : {size_t{1}, size_t{7}, whole.size() / 8 + 1, whole.size() + 5}) {
      EXPECT_EQ(read_in_chunks(files, s, chunk), whole) << "shard " << s << ", chunk " << chunk;
    }
  }
}

TEST_F(ShardKeyFilesTest, AKeptCacheIsReopenedForTheKeysItCoversAndAppendedTo) {
  {
    ShardKeyFiles files = ShardKeyFiles::fresh(keys_, kBits);
    files.append_from_log(log_, 0, 3000, 64);
    files.save();
  }
  EXPECT_FALSE(ShardKeyFiles::reopen(keys_, kBits, 2999)) << "other keys covered";
  EXPECT_FALSE(ShardKeyFiles::reopen(keys_, kBits + 1, 3000)) << "another shard count";
  std::optional<ShardKeyFiles> files = ShardKeyFiles::reopen(keys_, kBits, 3000);
  ASSERT_TRUE(files);
  EXPECT_THROW(files->append_from_log(log_, 2000, 5000, 64), std::invalid_argument) << "not after the kept keys";
  files->append_from_log(log_, 3000, 5000, 64);
  for (uint32_t s = 0; s < (1u << kBits); ++s) EXPECT_EQ(read_sorted(*files, s), expected_keys(hashes_, 0, 5000, s));
}

TEST_F(ShardKeyFilesTest, AKilledMergesAppendsAreCutBack) {
  {
    ShardKeyFiles files = ShardKeyFiles::fresh(keys_, kBits);
    files.append_from_log(log_, 0, 3000, 64);
    files.save();
    files.append_from_log(log_, 3000, 5000, 64);  // and no save(): killed before its end
  }
  std::optional<ShardKeyFiles> files = ShardKeyFiles::reopen(keys_, kBits, 3000);
  ASSERT_TRUE(files);
  for (uint32_t s = 0; s < (1u << kBits); ++s) EXPECT_EQ(read_sorted(*files, s), expected_keys(hashes_, 0, 3000, s));
}

TEST_F(ShardKeyFilesTest, LostOrDamagedKeysAreRefused) {
  {
    ShardKeyFiles files = ShardKeyFiles::fresh(keys_, kBits);
    files.append_from_log(log_, 0, 3000, 64);
    files.save();
  }
  {  // a page of zeros where keys were (a power cut after the files' sizes were written)
    std::fstream f(keys_ / "shard-2", std::ios::binary | std::ios::in | std::ios::out);
    const std::vector<char> zeros(64, 0);
    f.seekp(8);
    f.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  }
  std::optional<ShardKeyFiles> files = ShardKeyFiles::reopen(keys_, kBits, 3000);
  ASSERT_TRUE(files) << "sizes still match";
  std::vector<uint64_t> keys;
  EXPECT_FALSE(files->read(2, keys));
  EXPECT_TRUE(files->read(1, keys));
  EXPECT_FALSE(read_in_chunks(*files, 2, 16));
  EXPECT_TRUE(read_in_chunks(*files, 1, 16));

  fs::resize_file(keys_ / "shard-5", 16);  // keys lost from a file's end
  EXPECT_FALSE(files->read(5, keys));
  EXPECT_FALSE(read_in_chunks(*files, 5, 16));
  EXPECT_FALSE(ShardKeyFiles::reopen(keys_, kBits, 3000));

  {  // a damaged manifest
    ShardKeyFiles again = ShardKeyFiles::fresh(keys_, kBits);
    again.append_from_log(log_, 0, 3000, 64);
    again.save();
  }
  ASSERT_TRUE(ShardKeyFiles::reopen(keys_, kBits, 3000));
  {
    std::fstream f(keys_ / "KEYS", std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(30);
    f.put('x');
  }
  EXPECT_FALSE(ShardKeyFiles::reopen(keys_, kBits, 3000));
}

TEST_F(ShardKeyFilesTest, FreshFilesForgetTheCacheAndStrayFiles) {
  {
    ShardKeyFiles files = ShardKeyFiles::fresh(keys_, kBits + 1);
    files.append_from_log(log_, 0, 3000, 64);
    files.save();
  }
  std::ofstream(keys_ / "stray") << "x";
  ShardKeyFiles files = ShardKeyFiles::fresh(keys_, kBits);
  EXPECT_FALSE(fs::exists(keys_ / "KEYS"));
  EXPECT_FALSE(fs::exists(keys_ / "stray"));
  EXPECT_FALSE(fs::exists(keys_ / ("shard-" + std::to_string(1u << kBits)))) << "a shard of the larger count";
  for (uint32_t s = 0; s < (1u << kBits); ++s) {
    EXPECT_EQ(fs::file_size(keys_ / ("shard-" + std::to_string(s))), 0u);
    EXPECT_TRUE(read_sorted(files, s).empty());
  }
  files.append_from_log(log_, 0, 100, 64);
  files.clear(0);
  EXPECT_EQ(fs::file_size(keys_ / "shard-0"), 0u);
}

}  // namespace
}  // namespace bloomcrawl::seenfilter
