// Filter checkpoints: identical answers after a round trip, sealed layers reused rather than
// rewritten, retention, named manifests, and every kind of corruption detected and named.
#include "seenfilter/checkpoint.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <string>
#include <vector>

#include "seenfilter/checkpoint_files.h"
#include "tests/seenfilter/checkpoint_test_util.h"
#include "tests/seenfilter/url_keys.h"
#include "tests/support/faulty_file_system.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using testing::read_bytes;
using testing::TempDir;
using testing::url_key;
using testing::write_bytes;

SeenFilterOptions small_options() {
  SeenFilterOptions o;
  o.initial_capacity = 1000;
  o.target_fpr = 1e-4;
  return o;
}

void insert_range(SeenFilter& filter, uint64_t from, uint64_t to) {
  for (uint64_t i = from; i < to; ++i) filter.insert(url_key(i));
}

std::vector<std::string> files_named(const fs::path& dir, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().starts_with(prefix)) out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The error message of loading `dir`, or "" if it loads.
std::string load_error(const fs::path& dir, std::string_view manifest = {}) {
  try {
    load_checkpoint(dir, manifest);
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "";
}

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    insert_range(filter_, 0, 5500);  // layers of 1000, 2000, 4000: two sealed, one active
    manifest_ = save_checkpoint(filter_.snapshot(), dir_.path());
    first_size_ = filter_.size();  // 5500 less any false positives
  }
  fs::path manifest_path() const { return dir_.path() / manifest_; }
  fs::path layer_path(size_t i) const { return dir_.path() / files_named(dir_.path(), "layer-").at(i); }

  TempDir dir_;
  SeenFilter filter_{small_options()};
  std::string manifest_;
  uint64_t first_size_ = 0;
};

TEST_F(CheckpointTest, RoundTripAnswersIdentically) {
  EXPECT_EQ(manifest_, "MANIFEST-000001");
  EXPECT_TRUE(checkpoint_exists(dir_.path()));
  auto loaded = load_checkpoint(dir_.path());
  EXPECT_EQ(loaded->size(), filter_.size());
  EXPECT_EQ(loaded->stats().layers.size(), 3u);
  for (uint64_t i = 0; i < 50000; ++i) ASSERT_EQ(loaded->contains(url_key(i)), filter_.contains(url_key(i))) << i;
  EXPECT_EQ(loaded->options().target_fpr, filter_.options().target_fpr);
  EXPECT_DOUBLE_EQ(loaded->stats().estimated_false_positives, filter_.stats().estimated_false_positives);
  for (uint64_t i = 5500; i < 9000; ++i) ASSERT_EQ(loaded->try_insert(url_key(i)), filter_.try_insert(url_key(i))) << i;
}

TEST_F(CheckpointTest, SealedLayersAreWrittenOnceAndReused) {
  std::vector<std::string> steps;
  CheckpointSaveOptions options;
  options.progress = [&](std::string_view step) { steps.emplace_back(step); };
  insert_range(filter_, 5500, 6000);  // only the active layer changes
  EXPECT_EQ(save_checkpoint(filter_.snapshot(), dir_.path(), options), "MANIFEST-000002");
  EXPECT_EQ(std::count(steps.begin(), steps.end(), "layer 0 reused"), 1);
  EXPECT_EQ(std::count(steps.begin(), steps.end(), "layer 1 reused"), 1);
  EXPECT_EQ(std::count(steps.begin(), steps.end(), "layer 2 written"), 1);
  EXPECT_EQ(steps.back(), "retention done");
  // A reloaded filter knows its sealed layers' files too.
  auto loaded = load_checkpoint(dir_.path());
  steps.clear();
  save_checkpoint(loaded->snapshot(), dir_.path(), options);
  EXPECT_EQ(std::count(steps.begin(), steps.end(), "layer 0 reused"), 1);
  EXPECT_EQ(std::count(steps.begin(), steps.end(), "layer 1 reused"), 1);
}

TEST_F(CheckpointTest, RetentionKeepsLastManifestsAndTheirLayersOnly) {
  CheckpointSaveOptions options;
  options.keep_manifests = 2;
  for (uint64_t round = 1; round <= 3; ++round) {
    insert_range(filter_, 5500 + round * 100, 5600 + round * 100);
    save_checkpoint(filter_.snapshot(), dir_.path(), options);
  }
  EXPECT_EQ(files_named(dir_.path(), "MANIFEST-"), (std::vector<std::string>{"MANIFEST-000003", "MANIFEST-000004"}));
  // 2 sealed layers shared + the active layer of each kept manifest.
  EXPECT_EQ(files_named(dir_.path(), "layer-").size(), 4u);
  EXPECT_TRUE(files_named(dir_.path(), "CURRENT.").empty());
  EXPECT_EQ(load_error(dir_.path(), "MANIFEST-000003"), "");
}

TEST_F(CheckpointTest, LoadsANamedManifestAsWellAsCurrent) {
  insert_range(filter_, 100000, 101000);
  const uint64_t first_size = first_size_;
  const std::string second = save_checkpoint(filter_.snapshot(), dir_.path());
  auto first = load_checkpoint(dir_.path(), manifest_);
  auto latest = load_checkpoint(dir_.path());
  EXPECT_EQ(first->size(), first_size);
  EXPECT_EQ(latest->size(), filter_.size());
  EXPECT_EQ(load_checkpoint(dir_.path(), second)->size(), filter_.size());
  EXPECT_NE(load_error(dir_.path(), "../etc/passwd").find("not a manifest file name"), std::string::npos);
}

TEST_F(CheckpointTest, SnapshotTakenBeforeInsertsSavesThatState) {
  const FilterSnapshot snap = filter_.snapshot();
  insert_range(filter_, 200000, 203000);  // grows a new layer after the snapshot
  TempDir other;
  save_checkpoint(snap, other.path());
  EXPECT_EQ(load_checkpoint(other.path())->size(), first_size_);
}

TEST_F(CheckpointTest, EveryFlippedManifestByteIsDetected) {
  const std::vector<uint8_t> good = read_bytes(manifest_path());
  for (size_t i = 0; i < good.size(); ++i) {
    std::vector<uint8_t> bad = good;
    bad[i] ^= 0x40;
    write_bytes(manifest_path(), bad);
    const std::string error = load_error(dir_.path());
    ASSERT_NE(error.find(manifest_), std::string::npos) << "byte " << i << ": " << error;
  }
}

TEST_F(CheckpointTest, FlippedLayerBytesAreDetected) {
  for (size_t layer = 0; layer < 3; ++layer) {
    const fs::path path = layer_path(layer);
    const std::vector<uint8_t> good = read_bytes(path);
    std::vector<size_t> offsets;
    for (size_t i = 0; i < 64; ++i) offsets.push_back(i);  // header and the first bits
    for (size_t i = 64; i < good.size(); i += good.size() / 37) offsets.push_back(i);
    for (size_t i = good.size() - 8; i < good.size(); ++i) offsets.push_back(i);  // trailer
    for (size_t offset : offsets) {
      std::vector<uint8_t> bad = good;
      bad[offset] ^= 0x01;
      write_bytes(path, bad);
      const std::string error = load_error(dir_.path());
      ASSERT_NE(error.find(path.filename().string()), std::string::npos) << "offset " << offset << ": " << error;
    }
    write_bytes(path, good);
  }
  EXPECT_EQ(load_error(dir_.path()), "");
}

TEST_F(CheckpointTest, TruncationAtAnyOffsetIsDetected) {
  const std::vector<uint8_t> manifest = read_bytes(manifest_path());
  for (size_t len = 0; len < manifest.size(); ++len) {
    write_bytes(manifest_path(), std::vector<uint8_t>(manifest.begin(), manifest.begin() + static_cast<long>(len)));
    ASSERT_NE(load_error(dir_.path()).find("truncated"), std::string::npos) << len << ": " << load_error(dir_.path());
  }
  write_bytes(manifest_path(), manifest);
  const fs::path layer = layer_path(2);
  const std::vector<uint8_t> good = read_bytes(layer);
  for (size_t len = 0; len < good.size(); len += 1 + len / 3) {
    write_bytes(layer, std::vector<uint8_t>(good.begin(), good.begin() + static_cast<long>(len)));
    const std::string error = load_error(dir_.path());
    ASSERT_NE(error.find("truncated"), std::string::npos) << len << ": " << error;
    ASSERT_NE(error.find(layer.filename().string()), std::string::npos) << error;
  }
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  write_bytes(layer, longer);
  EXPECT_NE(load_error(dir_.path()).find("wrong size"), std::string::npos);
}

TEST_F(CheckpointTest, MissingLayerFileIsNamed) {
  const fs::path layer = layer_path(1);
  fs::remove(layer);
  const std::string error = load_error(dir_.path());
  EXPECT_NE(error.find(layer.filename().string()), std::string::npos) << error;
  EXPECT_NE(error.find("missing"), std::string::npos) << error;
}

TEST_F(CheckpointTest, WrongMagicAndWrongVersionAreNamed) {
  const std::vector<uint8_t> good = read_bytes(manifest_path());
  std::vector<uint8_t> bad = good;
  bad[0] = 'X';
  write_bytes(manifest_path(), bad);
  EXPECT_NE(load_error(dir_.path()).find("bad magic"), std::string::npos) << load_error(dir_.path());
  bad = good;
  bad[8] = 9;  // version 9 (1 and 2 are known)
  write_bytes(manifest_path(), bad);
  EXPECT_NE(load_error(dir_.path()).find("unsupported format version 9"), std::string::npos) << load_error(dir_.path());
  write_bytes(manifest_path(), good);

  const fs::path layer = layer_path(0);
  const std::vector<uint8_t> layer_good = read_bytes(layer);
  bad = layer_good;
  bad[3] = 'X';
  write_bytes(layer, bad);
  EXPECT_NE(load_error(dir_.path()).find("bad magic"), std::string::npos) << load_error(dir_.path());
  bad = layer_good;
  bad[8] = 7;
  write_bytes(layer, bad);
  EXPECT_NE(load_error(dir_.path()).find("unsupported format version 7"), std::string::npos) << load_error(dir_.path());
}

TEST_F(CheckpointTest, ForeignFilesAreRejected) {
  // A layer file of another filter with the same geometry, put in place of ours.
  SeenFilter other(small_options());
  for (uint64_t i = 0; i < 5500; ++i) other.insert(url_key(i, 99));
  TempDir other_dir;
  save_checkpoint(other.snapshot(), other_dir.path());
  const fs::path ours = layer_path(0);
  fs::copy_file(other_dir.path() / files_named(other_dir.path(), "layer-").at(0), ours,
                fs::copy_options::overwrite_existing);
  EXPECT_NE(load_error(dir_.path()).find("checksum differs from the manifest's"), std::string::npos)
      << load_error(dir_.path());
  // Something that is not a checkpoint at all.
  write_bytes(dir_.path() / "CURRENT", {'h', 'e', 'l', 'l', 'o', '\n'});
  EXPECT_NE(load_error(dir_.path()).find("not a manifest file name"), std::string::npos);
  write_bytes(dir_.path() / "CURRENT", {'M', 'A'});
  EXPECT_NE(load_error(dir_.path()).find("CURRENT"), std::string::npos);
  TempDir empty;
  EXPECT_NE(load_error(empty.path()).find("no checkpoint"), std::string::npos);
}

TEST_F(CheckpointTest, InspectReportsLayersAndVerifiesChecksums) {
  const CheckpointInfo info = inspect_checkpoint(dir_.path());
  EXPECT_EQ(info.manifest, manifest_);
  ASSERT_EQ(info.layers.size(), 3u);
  EXPECT_EQ(info.keys, first_size_);
  EXPECT_EQ(info.layers[0].entry.keys, 1000u);
  EXPECT_EQ(info.layers[2].entry.keys, first_size_ - 3000);
  const SeenFilterStats stats = filter_.stats();
  for (size_t i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(info.layers[i].fill, stats.layers[i].fill);
  EXPECT_DOUBLE_EQ(info.estimated_fpr, stats.estimated_fpr);
  std::vector<uint8_t> bad = read_bytes(layer_path(1));
  bad[100] ^= 0xff;
  write_bytes(layer_path(1), bad);
  EXPECT_THROW(inspect_checkpoint(dir_.path()), CheckpointError);
}

TEST_F(CheckpointTest, KeepZeroManifestsStillKeepsTheCurrentOne) {
  CheckpointSaveOptions options;
  options.keep_manifests = 0;
  insert_range(filter_, 5500, 5600);
  const std::string name = save_checkpoint(filter_.snapshot(), dir_.path(), options);
  EXPECT_EQ(files_named(dir_.path(), "MANIFEST-"), std::vector<std::string>{name});
  EXPECT_EQ(load_checkpoint(dir_.path())->size(), filter_.size());
}

TEST_F(CheckpointTest, UnwritableDirectoryIsACheckpointError) {
  const fs::path blocker = dir_.path() / "a-file";
  write_bytes(blocker, {'x'});
  try {
    save_checkpoint(filter_.snapshot(), blocker / "sub");
    FAIL() << "saved under a regular file";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("a-file"), std::string::npos) << e.what();
  }
}

TEST_F(CheckpointTest, AFailedFsyncLeavesThePreviousCheckpointLoadable) {
  insert_range(filter_, 5500, 6000);
  // Each fsync of the save in turn (layer file, manifest, CURRENT) fails once.
  for (int nth = 1;; ++nth) {
    testing::FaultyFileSystem faulty;
    faulty.fail_sync(nth, EIO);
    try {
      save_checkpoint(filter_.snapshot(), dir_.path());
    } catch (const CheckpointError& e) {
      EXPECT_NE(std::string(e.what()).find(dir_.path().string()), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("fsync failed"), std::string::npos) << e.what();
      auto loaded = load_checkpoint(dir_.path());
      EXPECT_EQ(loaded->size(), first_size_) << "fsync " << nth;
      continue;
    }
    EXPECT_EQ(nth, 4) << "a save has three fsyncs of files";
    break;
  }
  EXPECT_EQ(load_checkpoint(dir_.path())->size(), filter_.size());
}

TEST_F(CheckpointTest, EveryFailedStepOfASaveLeavesThePreviousCheckpointLoadable) {
  insert_range(filter_, 5500, 6000);
  int failures = 0;
  for (int nth = 1;; ++nth) {
    testing::FaultyFileSystem faulty;
    faulty.fail_step(nth, ENOSPC);
    try {
      save_checkpoint(filter_.snapshot(), dir_.path());
    } catch (const CheckpointError& e) {
      ++failures;
      EXPECT_EQ(load_error(dir_.path(), manifest_), "") << "step " << nth << ": " << e.what();
      // CURRENT names the previous checkpoint, or (the switch done, its directory sync failed) the new one.
      const uint64_t size = load_checkpoint(dir_.path())->size();
      EXPECT_TRUE(size == first_size_ || size == filter_.size()) << "step " << nth << ": " << e.what();
      continue;
    }
    break;
  }
  EXPECT_GE(failures, 12) << "creates, writes, syncs, closes and renames of 2 files, 3 directory syncs";
  EXPECT_EQ(load_checkpoint(dir_.path())->size(), filter_.size());
  EXPECT_TRUE(files_named(dir_.path(), "CURRENT.").empty());
}

TEST_F(CheckpointTest, RetentionKeepsCurrentPinnedAndNewerManifests) {
  CheckpointSaveOptions no_retention;
  no_retention.retention = false;
  std::vector<uint64_t> sizes{first_size_};
  for (uint64_t round = 1; round <= 3; ++round) {
    insert_range(filter_, 5500 + round * 100, 5600 + round * 100);
    save_checkpoint(filter_.snapshot(), dir_.path(), no_retention);
    sizes.push_back(filter_.size());
  }
  ASSERT_EQ(files_named(dir_.path(), "MANIFEST-").size(), 4u) << "a save without retention removes nothing";
  // As if the switch to MANIFEST-000004 had failed: 3 is current, 4 newer.
  const std::string current = "MANIFEST-000003\n";
  write_bytes(dir_.path() / "CURRENT", {current.begin(), current.end()});
  retain_checkpoints(dir_.path(), 1, {"MANIFEST-000001"});
  EXPECT_EQ(files_named(dir_.path(), "MANIFEST-"),
            (std::vector<std::string>{"MANIFEST-000001", "MANIFEST-000003", "MANIFEST-000004"}));
  for (const uint64_t m : {1, 3, 4}) {
    EXPECT_EQ(load_checkpoint(dir_.path(), seenfilter::manifest_file_name(m))->size(), sizes[m - 1]) << m;
  }
  // 2 sealed layers shared + the active layer of each kept manifest; 2's is gone.
  EXPECT_EQ(files_named(dir_.path(), "layer-").size(), 5u);
}

TEST(CheckpointLinking, LinksIdenticalLayersFromAnEarlierDirectory) {
  SeenFilter filter(small_options());
  insert_range(filter, 0, 3500);
  TempDir first;
  TempDir second;
  save_checkpoint(filter.snapshot(), first.path());
  insert_range(filter, 3500, 3600);
  std::vector<std::string> steps;
  CheckpointSaveOptions options;
  options.link_from = {first.path()};
  options.progress = [&](std::string_view step) { steps.emplace_back(step); };
  save_checkpoint(filter.snapshot(), second.path(), options);
  EXPECT_EQ(std::count(steps.begin(), steps.end(), "layer 0 linked"), 1);
  EXPECT_EQ(std::count(steps.begin(), steps.end(), "layer 1 linked"), 1);
  EXPECT_EQ(load_checkpoint(second.path())->size(), filter.size());
}

}  // namespace
}  // namespace bloomcrawl
