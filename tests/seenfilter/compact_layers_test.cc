// Compact mode (seenfilter/compact_layers.h): no false negative over random sequences of inserts,
// lookups, rebuilds and reloads checked against an exact set, a snapshot taken mid-rebuild (shards
// half switched) reloads with every key, the measured FPR is within the target's confidence
// interval at several sizes, and bits per key stay within the design's bound.
#include "seenfilter/compact_layers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tests/seenfilter/url_keys.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

SeenFilterOptions compact_options(const testing::TempDir& dir, uint64_t capacity, double fpr) {
  SeenFilterOptions o;
  o.initial_capacity = capacity;
  o.target_fpr = fpr;
  o.hash_log = dir.path() / "hashlog";
  return o;
}

// The filter, rebuilt from a snapshot as a restart would (the old one closed first: it owns the log).
std::unique_ptr<SeenFilter> reload(std::unique_ptr<SeenFilter> filter, const FilterSnapshot& snap) {
  filter.reset();
  return std::make_unique<SeenFilter>(snap);
}

TEST(CompactLayers, RandomSequencesNeverLoseAKey) {
  testing::TempDir dir;
  std::mt19937_64 rng(7);
  auto filter = std::make_unique<SeenFilter>(compact_options(dir, 2000, 1e-5));
  // Ids whose insert returned kNew. A false positive's kSeen records nothing, and once a rebuild
  // drops the frozen layer that gave it, the key may be absent again: it is not in this set.
  std::set<uint64_t> exact;
  FilterSnapshot saved = filter->snapshot();  // and the set it holds
  std::set<uint64_t> saved_exact;
  uint64_t next_id = 0;
  for (int round = 0; round < 60; ++round) {
    const uint64_t op = rng() % 10;
    if (op < 6) {  // a batch of new keys and repeats
      std::vector<std::string> keys;
      std::vector<uint64_t> ids;
      for (int i = 0, n = static_cast<int>(rng() % 3000); i < n; ++i) {
        const uint64_t id = (rng() % 4 == 0 && next_id > 0) ? rng() % next_id : next_id++;
        ids.push_back(id);
        keys.push_back(testing::url_key(id));
      }
      std::vector<std::string_view> views(keys.begin(), keys.end());
      std::vector<InsertOutcome> out(views.size());
      filter->insert_batch(views, out, rng() % 2 ? SeenFilter::Writers::kOne : SeenFilter::Writers::kMany);
      for (size_t i = 0; i < ids.size(); ++i) {
        ASSERT_NE(out[i], InsertOutcome::kFull);
        if (exact.contains(ids[i])) {
          ASSERT_EQ(out[i], InsertOutcome::kSeen) << "id " << ids[i];
        }
        if (out[i] == InsertOutcome::kNew) exact.insert(ids[i]);
      }
    } else if (op == 6) {
      filter->compact_layers()->wait_for_rebuild();
    } else if (op == 7) {
      saved = filter->snapshot();
      saved_exact = exact;
    } else if (op == 8) {  // restart from the last snapshot: later keys are gone, earlier ones kept
      filter = reload(std::move(filter), saved);
      exact = saved_exact;
    } else {  // single calls
      const uint64_t id = next_id++;
      if (filter->insert(testing::url_key(id))) exact.insert(id);
    }
    ASSERT_EQ(filter->size(), exact.size()) << "round " << round;
    for (const uint64_t id : exact) ASSERT_TRUE(filter->contains(testing::url_key(id))) << "id " << id;
  }
  filter->compact_layers()->wait_for_rebuild();
  EXPECT_GT(filter->stats(false).layers.front().keys, 4000u) << "the compact layer took sealed keys";
  for (const uint64_t id : exact) ASSERT_TRUE(filter->contains(testing::url_key(id)));
}

TEST(CompactLayers, SnapshotMidRebuildReloadsEveryKey) {
  testing::TempDir dir;
  auto filter = std::make_unique<SeenFilter>(compact_options(dir, 1 << 16, 1e-6));
  const uint64_t n = 300'000 / testing::kScale;
  std::vector<uint64_t> recorded;  // a false positive's kSeen records nothing
  for (uint64_t i = 0; i < n; ++i) {
    if (filter->insert(testing::url_key(i))) recorded.push_back(i);
  }
  filter->compact_layers()->wait_for_rebuild();
  // Hold the next rebuild after its first shard switch, and snapshot there.
  std::mutex mu;
  std::condition_variable cv;
  bool switched = false, release = false;
  filter->compact_layers()->set_rebuild_progress([&](std::string_view step) {
    if (step != "shard 0 switched") return;
    std::unique_lock lock(mu);
    switched = true;
    cv.notify_all();
    cv.wait(lock, [&] { return release; });
  });
  uint64_t id = n;
  const uint64_t rebuilds = filter->compact_layers()->rebuilds();
  // Fill the active layer until it seals (a frozen layer appears), then wait for the first switch:
  // inserting on could fill the new active layer too, whose seal would wait for the held rebuild.
  while (filter->stats(false).layers.size() < 3) {
    if (filter->insert(testing::url_key(id))) recorded.push_back(id);
    ++id;
  }
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return switched; });
  }
  for (int i = 0; i < 100; ++i, ++id) {
    if (filter->insert(testing::url_key(id))) recorded.push_back(id);
  }
  FilterSnapshot snap = filter->snapshot();
  EXPECT_EQ(snap.layers.size(), 2u) << "a frozen layer beside the active one";
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  filter->compact_layers()->wait_for_rebuild();
  EXPECT_EQ(filter->compact_layers()->rebuilds(), rebuilds + 1);
  filter = reload(std::move(filter), snap);  // finishes the interrupted rebuild itself
  for (const uint64_t i : recorded) ASSERT_TRUE(filter->contains(testing::url_key(i))) << i;
  filter->compact_layers()->wait_for_rebuild();
  EXPECT_EQ(filter->stats(false).layers.size(), 2u) << "compact + active once the rebuild is done";
  for (const uint64_t i : recorded) ASSERT_TRUE(filter->contains(testing::url_key(i))) << i;
}

// At 1e-3 a million absent keys expect 1000 false positives: the bound is the target plus four
// standard deviations of a binomial count.
TEST(CompactLayers, MeasuredFprWithinTheTargetsConfidenceInterval) {
  constexpr double kTarget = 1e-3;
  for (const uint64_t n :
       {uint64_t{20'000}, uint64_t{150'000} / testing::kScale, uint64_t{400'000} / testing::kScale}) {
    testing::TempDir dir;
    SeenFilter filter(compact_options(dir, 10'000, kTarget));
    std::vector<uint64_t> recorded;  // a false positive's kSeen records nothing
    for (uint64_t i = 0; i < n; ++i) {
      if (filter.insert(testing::url_key(i))) recorded.push_back(i);
    }
    const uint64_t absent = 1'000'000 / testing::kScale;
    uint64_t positives = 0;
    for (uint64_t i = 0; i < absent; ++i) positives += filter.contains(testing::url_key(i, 1)) ? 1 : 0;
    const double expected = kTarget * static_cast<double>(absent);
    EXPECT_LE(static_cast<double>(positives), expected + 4 * std::sqrt(expected)) << n << " keys";
    const SeenFilterStats s = filter.stats(false);
    EXPECT_LE(s.estimated_fpr, kTarget) << n << " keys";
    for (const uint64_t i : recorded) ASSERT_TRUE(filter.contains(testing::url_key(i)));
  }
}

TEST(CompactLayers, GrownFilterStaysWithinTheBitsPerKeyBound) {
  testing::TempDir dir;
  SeenFilter filter(compact_options(dir, 10'000, 1e-6));
  const uint64_t n = 500'000 / testing::kScale;
  uint64_t recorded = 0;
  // Past 8x the initial capacity (active layers of keys/8), every sample is within the peak model
  // (compact_math.h) at the largest compact and Bloom bits per key seen.
  double most = 0, compact_most = 0, bloom_most = 0;
  for (uint64_t i = 0; i < n; ++i) {
    recorded += filter.insert(testing::url_key(i)) ? 1 : 0;
    if (i >= 80'000 && i % 1024 == 0) {
      const SeenFilterStats sample = filter.stats(false);
      most = std::max(most, sample.bits_per_key);
      compact_most = std::max(compact_most, sample.layers.front().bits_per_key);
      bloom_most = std::max(bloom_most, sample.layers.back().bits_per_key);
    }
  }
  EXPECT_LE(most, seenfilter::peak_bits_per_key(compact_most, bloom_most, seenfilter::kActiveRatio) * 1.01);
  filter.compact_layers()->wait_for_rebuild();
  const SeenFilterStats s = filter.stats(false);
  ASSERT_EQ(s.layers.front().kind, "compact");
  EXPECT_EQ(s.keys, recorded);
  EXPECT_GE(recorded, n - 5);  // a few false positives at 1e-6 at most
  // 10k -> 500k: the fuse shards at 21 bits (about 25 bits per key at this size) plus the active layer.
  EXPECT_LE(s.bits_per_key, 34.0);
  EXPECT_LT(s.layers.front().bits_per_key, 27.0);
}

TEST(CompactLayers, MemoryLimitRefusesGrowthButKeepsAnswering) {
  testing::TempDir dir;
  SeenFilterOptions o = compact_options(dir, 1000, 1e-6);
  o.memory_limit_bytes = 20'000;
  SeenFilter filter(o);
  uint64_t recorded = 0, refused = 0;
  for (uint64_t i = 0; i < 5000; ++i) {
    const InsertOutcome r = filter.try_insert(testing::url_key(i));
    if (r == InsertOutcome::kNew) ++recorded;
    if (r == InsertOutcome::kFull) ++refused;
  }
  EXPECT_TRUE(filter.full());
  EXPECT_NE(filter.full_reason().find("memory_limit_bytes"), std::string::npos) << filter.full_reason();
  EXPECT_GT(refused, 0u);
  EXPECT_EQ(filter.size(), recorded);
  for (uint64_t i = 0; i < recorded; ++i) EXPECT_TRUE(filter.contains(testing::url_key(i)));
}

}  // namespace
}  // namespace bloomcrawl
