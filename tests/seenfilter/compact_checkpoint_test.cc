// Checkpoints of a compact filter (manifest version 2, docs/checkpoint-format.md): a save reloads
// with every key it covered and none after it (the log is cut back), inspection shows each layer's
// kind, a process killed during a rebuild leaves the last checkpoint loadable, and a layered filter
// still writes (and reads) version 1.
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/checksum.h"
#include "base/data_error.h"
#include "seenfilter/checkpoint.h"
#include "seenfilter/checkpoint_files.h"
#include "seenfilter/checkpoint_format.h"
#include "seenfilter/compact_layers.h"
#include "tests/seenfilter/url_keys.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

SeenFilterOptions compact_in(const std::filesystem::path& dir, uint64_t capacity) {
  SeenFilterOptions o;
  o.initial_capacity = capacity;
  o.target_fpr = 1e-6;
  o.hash_log = dir / seenfilter::kHashLogFileName;
  return o;
}

// Inserts ids [from, to); returns those recorded (kNew).
std::vector<uint64_t> insert_ids(SeenFilter& filter, uint64_t from, uint64_t to) {
  std::vector<uint64_t> recorded;
  for (uint64_t i = from; i < to; ++i) {
    if (filter.insert(testing::url_key(i))) recorded.push_back(i);
  }
  return recorded;
}

TEST(CompactCheckpoint, SaveReloadsTheKeysItCoveredAndCutsTheLog) {
  testing::TempDir dir;
  std::vector<uint64_t> saved;
  uint64_t saved_size = 0;
  {
    SeenFilter filter(compact_in(dir.path(), 4000));
    saved = insert_ids(filter, 0, 60'000);
    save_checkpoint(filter.snapshot(), dir.path());
    saved_size = filter.size();
    insert_ids(filter, 60'000, 70'000);  // after the checkpoint: lost with the process
  }
  const CheckpointInfo info = inspect_checkpoint(dir.path());
  EXPECT_EQ(info.version, seenfilter::kTieredManifestVersion);
  ASSERT_GE(info.layers.size(), 2u);
  EXPECT_EQ(info.layers.front().kind, "compact");
  EXPECT_GT(info.layers.front().entry.keys, 0u);
  EXPECT_EQ(info.layers.back().kind, "bloom");
  EXPECT_EQ(info.keys, saved_size);
  EXPECT_EQ(info.log_keys, saved_size);

  std::unique_ptr<SeenFilter> loaded = load_checkpoint(dir.path());
  ASSERT_NE(loaded->compact_layers(), nullptr);
  EXPECT_EQ(loaded->size(), saved_size);
  for (const uint64_t i : saved) ASSERT_TRUE(loaded->contains(testing::url_key(i))) << i;
  // Keys after the checkpoint are new again, and the log was cut: a rebuild sees only real keys.
  EXPECT_GT(insert_ids(*loaded, 60'000, 70'000).size(), 9'990u);
  insert_ids(*loaded, 70'000, 120'000);
  loaded->compact_layers()->wait_for_rebuild();
  EXPECT_FALSE(loaded->full()) << loaded->full_reason();
  save_checkpoint(loaded->snapshot(), dir.path());
  loaded.reset();
  loaded = load_checkpoint(dir.path());
  for (const uint64_t i : saved) ASSERT_TRUE(loaded->contains(testing::url_key(i))) << i;
}

TEST(CompactCheckpoint, SavingIntoAnotherDirectoryThanTheLogsIsRefused) {
  testing::TempDir dir;
  testing::TempDir other;
  SeenFilter filter(compact_in(dir.path(), 1000));
  insert_ids(filter, 0, 100);
  EXPECT_THROW(save_checkpoint(filter.snapshot(), other.path()), CheckpointError);
}

TEST(CompactCheckpoint, RunsAreSavedInspectedAndReloaded) {
  testing::TempDir dir;
  std::vector<uint64_t> recorded;
  uint64_t size = 0;
  {
    SeenFilter filter(compact_in(dir.path(), 4000));
    // Grow until a seal has built a run of at least 2^12 keys beside the big level (smaller fuse
    // filters have more cells per key than the bound below).
    for (uint64_t from = 0;; from += 2000) {
      ASSERT_LT(from, 400'000u) << "no run was built";
      const std::vector<uint64_t> got = insert_ids(filter, from, from + 2000);
      recorded.insert(recorded.end(), got.begin(), got.end());
      filter.compact_layers()->wait_for_rebuild();
      const LayerStats second = filter.stats(false).layers[1];
      if (second.kind == "run" && second.keys >= 4096) break;
    }
    save_checkpoint(filter.snapshot(), dir.path());
    size = filter.size();
  }
  const CheckpointInfo info = inspect_checkpoint(dir.path());
  EXPECT_EQ(info.version, seenfilter::kTieredManifestVersion);
  const seenfilter::TieredBudget budget =
      seenfilter::split_tiered_budget(1e-6, seenfilter::kTieredActiveRatio, seenfilter::kMergeRatio);
  ASSERT_GE(info.layers.size(), 3u);
  const CheckpointLayerInfo& run = info.layers[1];
  EXPECT_EQ(run.kind, "run");
  EXPECT_GT(run.entry.keys, 0u);
  EXPECT_GT(run.bits_per_key, budget.run_fingerprint_bits);  // cells per key above 1
  EXPECT_LT(run.bits_per_key, 1.5 * budget.run_fingerprint_bits);
  EXPECT_DOUBLE_EQ(run.target_fpr, budget.run_fpr);
  EXPECT_DOUBLE_EQ(run.estimated_fpr, budget.run_fpr);
  EXPECT_EQ(info.keys, size);
  std::unique_ptr<SeenFilter> loaded = load_checkpoint(dir.path());
  EXPECT_EQ(loaded->size(), size);
  EXPECT_EQ(loaded->stats(false).layers[1].kind, "run");
  for (const uint64_t i : recorded) ASSERT_TRUE(loaded->contains(testing::url_key(i))) << i;
}

// A version 2 checkpoint (big level only, possibly of another fingerprint size) loads as a tiered
// filter with no runs; its next seal merges, and the filter goes on growing.
TEST(CompactCheckpoint, VersionTwoCheckpointsStillLoad) {
  testing::TempDir dir;
  std::vector<uint64_t> recorded;
  {
    SeenFilter filter(compact_in(dir.path(), 4000));
    // One seal: the first job merges the first layer's keys into an empty big level.
    recorded = insert_ids(filter, 0, seenfilter::kMinActiveKeys + 100);
    filter.compact_layers()->wait_for_rebuild();
    const FilterSnapshot snap = filter.snapshot();
    ASSERT_TRUE(snap.runs.empty());
    ASSERT_GT(snap.compact_keys, 0u);
    save_checkpoint(snap, dir.path());
  }
  // The same checkpoint as version 2 wrote it: version 2's manifest is version 3's without runs.
  const std::string name = seenfilter::resolve_manifest_name(dir.path(), {});
  seenfilter::Manifest m = seenfilter::read_manifest_file(dir.path() / name);
  m.version = seenfilter::kCompactManifestVersion;
  const std::vector<uint8_t> bytes = seenfilter::encode_manifest(m);
  {
    std::ofstream out(dir.path() / name, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  EXPECT_EQ(inspect_checkpoint(dir.path()).version, seenfilter::kCompactManifestVersion);
  std::unique_ptr<SeenFilter> loaded = load_checkpoint(dir.path());
  for (const uint64_t i : recorded) ASSERT_TRUE(loaded->contains(testing::url_key(i))) << i;
  const std::vector<uint64_t> more = insert_ids(*loaded, 6000, 30'000);
  loaded->compact_layers()->wait_for_rebuild();
  EXPECT_FALSE(loaded->full()) << loaded->full_reason();
  EXPECT_GE(loaded->compact_layers()->rebuilds(), 1u);
  for (const uint64_t i : recorded) ASSERT_TRUE(loaded->contains(testing::url_key(i))) << i;
  for (const uint64_t i : more) ASSERT_TRUE(loaded->contains(testing::url_key(i))) << i;
  save_checkpoint(loaded->snapshot(), dir.path());
  EXPECT_EQ(inspect_checkpoint(dir.path()).version, seenfilter::kTieredManifestVersion);
}

TEST(CompactCheckpoint, VersionThreeManifestRoundTripsAndRejectsEveryTruncation) {
  seenfilter::Manifest m;
  m.version = seenfilter::kTieredManifestVersion;
  m.options.initial_capacity = 1000;
  m.options.target_fpr = 1e-6;
  m.layers.push_back({3, 4, 1000, 10, 16, seenfilter::layer_file_size(16), 7});
  m.shards = {{1, 5, 100, 9}, {1, 0, 0, 0}};
  m.runs = {{7, {{0, 7, 120, 11}}}, {8, {{1, 3, 90, 12}, {1, 5, 95, 13}}}};
  m.compact_keys = 5;
  m.log_keys = 5 + 7 + 8 + 10;
  std::vector<uint8_t> bytes = seenfilter::encode_manifest(m);
  const seenfilter::Manifest back = seenfilter::decode_manifest(bytes, "manifest");
  EXPECT_EQ(back.version, seenfilter::kTieredManifestVersion);
  ASSERT_EQ(back.runs.size(), 2u);
  EXPECT_EQ(back.runs[1].keys, 8u);
  ASSERT_EQ(back.runs[1].shards.size(), 2u);
  EXPECT_EQ(back.runs[1].shards[1].checksum, 13u);
  EXPECT_EQ(back.shards[0].keys, 5u);
  EXPECT_EQ(back.log_keys, m.log_keys);
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_THROW(seenfilter::decode_manifest(std::span(bytes).first(n), "manifest"), CheckpointError) << n;
  }
  // A run count one higher, checksum recomputed: the bytes end exactly where that run would start.
  bytes[68] += 1;
  const size_t body = bytes.size() - seenfilter::kChecksumBytes;
  const uint64_t sum = checksum64(bytes.data(), body);
  for (size_t i = 0; i < 8; ++i) bytes[body + i] = static_cast<uint8_t>(sum >> (8 * i));
  EXPECT_THROW(seenfilter::decode_manifest(bytes, "manifest"), CheckpointError);
  // Keys that do not add up to the log's.
  m.log_keys += 1;
  EXPECT_THROW(seenfilter::decode_manifest(seenfilter::encode_manifest(m), "manifest"), CheckpointError);
}

// The largest manifest a tiered filter writes (256 big shards, kMaxRuns runs of 256 shards) is read
// back from its file: the reader's size limit was once a layered manifest's (6 KB), so every
// compact checkpoint of about 200 shards or more (a filter of some 10M keys) failed to load.
TEST(CompactCheckpoint, TheLargestTieredManifestIsReadBackFromItsFile) {
  testing::TempDir dir;
  seenfilter::Manifest m;
  m.version = seenfilter::kTieredManifestVersion;
  m.sequence = 1;
  m.options.initial_capacity = 1000;
  m.options.target_fpr = 1e-6;
  m.layers.push_back({3, 4, 1000, 10, 16, seenfilter::layer_file_size(16), 7});
  const seenfilter::ManifestShard shard{8, 1, 64, 1};
  m.shards.assign(seenfilter::kMaxManifestShards, shard);
  m.compact_keys = seenfilter::kMaxManifestShards;
  for (uint32_t r = 0; r < seenfilter::kMaxRuns; ++r) {
    m.runs.push_back({seenfilter::kMaxManifestShards, std::vector(seenfilter::kMaxManifestShards, shard)});
  }
  m.log_keys = m.compact_keys * (1 + seenfilter::kMaxRuns) + 10;
  const std::vector<uint8_t> bytes = seenfilter::encode_manifest(m);
  EXPECT_EQ(bytes.size() + seenfilter::kManifestEntryBytes, seenfilter::max_manifest_bytes());  // one layer of two
  const std::filesystem::path file = dir.path() / "MANIFEST-000001";
  {
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  const seenfilter::Manifest back = seenfilter::read_manifest_file(file);
  EXPECT_EQ(back.shards.size(), seenfilter::kMaxManifestShards);
  ASSERT_EQ(back.runs.size(), seenfilter::kMaxRuns);
  EXPECT_EQ(back.runs.back().shards.size(), seenfilter::kMaxManifestShards);
}

// A real kill: the child saves, grows until a job reaches `step` (a merge's first shard switch, or
// a run's first shard built), and dies there.
void kill_at_step_leaves_the_last_checkpoint_loadable(std::string_view step) {
  testing::TempDir dir;
  constexpr uint64_t kSaved = 40'000;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    SeenFilter filter(compact_in(dir.path(), 4000));
    const std::vector<uint64_t> recorded = insert_ids(filter, 0, kSaved);
    filter.compact_layers()->wait_for_rebuild();
    save_checkpoint(filter.snapshot(), dir.path());
    // The ids an insert found present by a false positive (rare, 1e-6 each) were never recorded:
    // the parent does not look for them.
    {
      std::ofstream unrecorded(dir.path() / "unrecorded");  // closed before the child dies
      size_t next = 0;
      for (uint64_t i = 0; i < kSaved; ++i) {
        if (next < recorded.size() && recorded[next] == i) {
          ++next;
        } else {
          unrecorded << i << "\n";
        }
      }
    }
    filter.compact_layers()->set_rebuild_progress([step](std::string_view at) {
      if (at == step) ::_exit(7);
    });
    insert_ids(filter, kSaved, 8 * kSaved);
    ::_exit(0);  // not reached: seals start runs and merges long before
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 7) << "the child died inside a job at " << step;
  std::set<uint64_t> unrecorded;
  {
    std::ifstream in(dir.path() / "unrecorded");
    for (uint64_t i = 0; in >> i;) unrecorded.insert(i);
  }
  EXPECT_LE(unrecorded.size(), 2u) << "false positives at 1e-6";
  std::unique_ptr<SeenFilter> loaded = load_checkpoint(dir.path());
  uint64_t found = 0;
  for (uint64_t i = 0; i < kSaved; ++i) {
    if (!unrecorded.contains(i)) found += loaded->contains(testing::url_key(i)) ? 1 : 0;
  }
  EXPECT_EQ(found, kSaved - unrecorded.size());
  EXPECT_EQ(loaded->size(), inspect_checkpoint(dir.path()).keys);
  // It goes on growing (building runs and merging) from there.
  insert_ids(*loaded, kSaved, 2 * kSaved);
  loaded->compact_layers()->wait_for_rebuild();
  EXPECT_FALSE(loaded->full()) << loaded->full_reason();
  for (uint64_t i = 0; i < kSaved; ++i) {
    if (!unrecorded.contains(i)) {
      ASSERT_TRUE(loaded->contains(testing::url_key(i))) << i;
    }
  }
}

TEST(CompactCheckpoint, KillDuringAMergeLeavesTheLastCheckpointLoadable) {
  kill_at_step_leaves_the_last_checkpoint_loadable("shard 0 switched");
}

TEST(CompactCheckpoint, KillDuringARunBuildLeavesTheLastCheckpointLoadable) {
  kill_at_step_leaves_the_last_checkpoint_loadable("run shard 0 built");
}

TEST(CompactCheckpoint, KillDuringAPairBuildLeavesTheLastCheckpointLoadable) {
  kill_at_step_leaves_the_last_checkpoint_loadable("pair shard 0 switched");
}

TEST(CompactCheckpoint, LayeredFiltersStillWriteVersionOne) {
  testing::TempDir dir;
  SeenFilterOptions o;
  o.initial_capacity = 1000;
  SeenFilter filter(o);
  insert_ids(filter, 0, 3000);
  save_checkpoint(filter.snapshot(), dir.path());
  const CheckpointInfo info = inspect_checkpoint(dir.path());
  EXPECT_EQ(info.version, seenfilter::kCheckpointVersion);
  for (const CheckpointLayerInfo& l : info.layers) EXPECT_EQ(l.kind, "bloom");
  std::unique_ptr<SeenFilter> loaded = load_checkpoint(dir.path());
  EXPECT_EQ(loaded->compact_layers(), nullptr);
  EXPECT_EQ(loaded->size(), filter.size());
}

}  // namespace
}  // namespace bloomcrawl
