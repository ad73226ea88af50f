// SeenFilter behaviour: no false negatives, measured FPR under target while growing through
// many layers, insert-if-absent outcomes, batch forms, memory limit, option validation, stats.
#include "seenfilter/seen_filter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/seenfilter/url_keys.h"

namespace bloomcrawl {
namespace {

using testing::kScale;
using testing::url_key;

SeenFilterOptions small_options(uint64_t capacity, double fpr) {
  SeenFilterOptions o;
  o.initial_capacity = capacity;
  o.target_fpr = fpr;
  return o;
}

double measured_fpr(const SeenFilter& filter, uint64_t queries, uint32_t absent_salt) {
  uint64_t hits = 0;
  for (uint64_t i = 0; i < queries; ++i) hits += filter.contains(url_key(i, absent_salt)) ? 1 : 0;
  return static_cast<double>(hits) / static_cast<double>(queries);
}

struct InsertCounts {
  uint64_t fresh = 0;
  uint64_t full = 0;
};

// Inserts url_key(0 .. n-1) one by one and counts the kNew and kFull outcomes.
InsertCounts insert_keys(SeenFilter& filter, uint64_t n) {
  InsertCounts counts;
  for (uint64_t i = 0; i < n; ++i) {
    const InsertOutcome r = filter.try_insert(url_key(i));
    counts.fresh += r == InsertOutcome::kNew ? 1 : 0;
    counts.full += r == InsertOutcome::kFull ? 1 : 0;
  }
  return counts;
}

TEST(SeenFilter, InsertReportsNewThenSeen) {
  SeenFilter filter(small_options(1000, 1e-6));
  EXPECT_FALSE(filter.contains("https://example.com/"));
  EXPECT_TRUE(filter.insert("https://example.com/"));
  EXPECT_TRUE(filter.contains("https://example.com/"));
  EXPECT_FALSE(filter.insert("https://example.com/"));
  EXPECT_EQ(filter.try_insert("https://example.com/"), InsertOutcome::kSeen);
  EXPECT_EQ(filter.try_insert("https://example.com/a"), InsertOutcome::kNew);
  EXPECT_EQ(filter.size(), 2u);
}

TEST(SeenFilter, NoFalseNegativesOverMillionsOfKeys) {
  const uint64_t n = 2'000'000 / kScale;
  SeenFilter filter(small_options(100'000 / kScale, 1e-4));
  uint64_t new_count = 0;
  for (uint64_t i = 0; i < n; ++i) new_count += filter.insert(url_key(i)) ? 1 : 0;
  for (uint64_t i = 0; i < n; ++i) ASSERT_TRUE(filter.contains(url_key(i))) << i;
  // Only false positives can make an insert of a distinct key report kSeen.
  EXPECT_GE(new_count, n - n / 1000);
  EXPECT_EQ(filter.size(), new_count);
  EXPECT_GE(filter.stats(false).layers.size(), 4u);
}

TEST(SeenFilter, MeasuredFprStaysUnderTargetThroughManyLayers) {
  const double target = 0.01;
  SeenFilter filter(small_options(2000 / kScale, target));
  const uint64_t queries = 100'000 / kScale;
  uint64_t next = 0;
  uint32_t checked_layers = 0;
  while (filter.stats(false).layers.size() < 8) {
    // Fill exactly to the end of the current layer, then measure with absent URLs.
    const SeenFilterStats before = filter.stats(false);
    const LayerStats& active = before.layers.back();
    for (uint64_t i = active.keys; i < active.capacity; ++i) filter.insert(url_key(next++));
    const SeenFilterStats s = filter.stats(false);
    const double measured = measured_fpr(filter, queries, 1000 + checked_layers);
    EXPECT_LE(measured, target) << "after " << s.layers.size() << " layers, " << s.keys << " keys";
    // The model behind the sizing must match reality (4 sigma + 20% slack for hash quality).
    const double slack = 4.0 * std::sqrt(s.estimated_fpr / static_cast<double>(queries));
    EXPECT_LE(measured, s.estimated_fpr * 1.2 + slack) << s.layers.size() << " layers";
    EXPECT_LE(s.estimated_fpr, target);
    ++checked_layers;
    filter.insert(url_key(next++));  // spills into a new layer
  }
  EXPECT_GE(checked_layers, 7u);
}

TEST(SeenFilter, LayersGrowGeometrically) {
  SeenFilterOptions o = small_options(1000, 1e-3);
  o.growth_factor = 2.0;
  SeenFilter filter(o);
  for (uint64_t i = 0; i < 7000; ++i) filter.insert(url_key(i));
  const SeenFilterStats s = filter.stats();
  ASSERT_GE(s.layers.size(), 3u);
  EXPECT_EQ(s.layers[0].capacity, 1000u);
  EXPECT_EQ(s.layers[1].capacity, 2000u);
  EXPECT_EQ(s.layers[2].capacity, 4000u);
  EXPECT_TRUE(s.layers[0].sealed);
  EXPECT_LT(s.layers[1].target_fpr, s.layers[0].target_fpr);
  // A tighter share costs bits (layers 0 and 1 may round to the same block count: a block is
  // 0.5 bits/key at 1000 keys).
  EXPECT_GE(s.layers[1].bits_per_key, s.layers[0].bits_per_key);
  EXPECT_GT(s.layers[2].bits_per_key, s.layers[0].bits_per_key);
  for (const LayerStats& l : s.layers) {
    EXPECT_GT(l.fill, 0.0);
    EXPECT_LT(l.fill, 0.7);
  }
}

TEST(SeenFilter, BatchFormsMatchSingleKeyForms) {
  SeenFilter batch(small_options(500, 1e-6));
  SeenFilter single(small_options(500, 1e-6));
  std::vector<std::string> urls;
  for (uint64_t i = 0; i < 3000; ++i) urls.push_back(url_key(i % 2000));  // 1000 repeats
  std::vector<std::string_view> views(urls.begin(), urls.end());
  std::vector<InsertOutcome> outcomes(views.size());
  batch.insert_batch(views, outcomes);
  for (size_t i = 0; i < views.size(); ++i) EXPECT_EQ(outcomes[i], single.try_insert(views[i])) << i;
  std::vector<std::string> probes;
  for (uint64_t i = 0; i < 4000; ++i) probes.push_back(url_key(i));
  std::vector<std::string_view> probe_views(probes.begin(), probes.end());
  auto found = std::make_unique<bool[]>(probe_views.size());
  batch.contains_batch(probe_views, std::span<bool>(found.get(), probe_views.size()));
  for (size_t i = 0; i < probe_views.size(); ++i) EXPECT_EQ(found[i], single.contains(probe_views[i])) << i;
  EXPECT_THROW(batch.insert_batch(views, std::span<InsertOutcome>(outcomes.data(), 3)), std::invalid_argument);
}

TEST(SeenFilter, SingleWriterBatchesMatchLockedOnes) {
  // Across layer growth, with repeats inside and across batches, and up to a memory limit (kFull).
  SeenFilterOptions o = small_options(500, 1e-4);
  o.memory_limit_bytes = SeenFilter(o).stats().bytes * 7;  // layers 0-2 (1x + 2x + 4x), not layer 3
  SeenFilter one(o);
  SeenFilter many(o);
  std::vector<std::string> urls;
  for (uint64_t i = 0; i < 8000; ++i) urls.push_back(url_key((i * 7) % 5000));
  std::vector<std::string_view> views(urls.begin(), urls.end());
  std::vector<InsertOutcome> got(views.size());
  std::vector<InsertOutcome> want(views.size());
  for (size_t at = 0; at < views.size(); at += 700) {
    const size_t n = std::min<size_t>(700, views.size() - at);
    one.insert_batch(std::span(views).subspan(at, n), std::span(got).subspan(at, n), SeenFilter::Writers::kOne);
    many.insert_batch(std::span(views).subspan(at, n), std::span(want).subspan(at, n));
  }
  EXPECT_EQ(got, want);
  EXPECT_NE(std::count(want.begin(), want.end(), InsertOutcome::kFull), 0);
  EXPECT_EQ(one.stats(false).layers.size(), 3u);
  EXPECT_EQ(one.size(), many.size());
  for (uint64_t i = 0; i < 6000; ++i) ASSERT_EQ(one.contains(url_key(i)), many.contains(url_key(i))) << i;
}

TEST(SeenFilter, MemoryLimitRefusesGrowthButKeepsAnswering) {
  SeenFilterOptions o = small_options(1000, 1e-3);
  const uint64_t first_layer_bytes = SeenFilter(o).stats().bytes;
  o.memory_limit_bytes = first_layer_bytes * 2;  // room for layer 0 but not layers 0 + 1 (2x size)
  SeenFilter filter(o);
  const InsertCounts counts = insert_keys(filter, 3000);
  EXPECT_EQ(counts.fresh, 1000u);
  EXPECT_GE(counts.full, 1900u);
  EXPECT_TRUE(filter.full());
  EXPECT_NE(filter.full_reason().find("memory_limit_bytes"), std::string::npos) << filter.full_reason();
  EXPECT_EQ(filter.stats().layers.size(), 1u);
  EXPECT_LE(filter.stats().bytes, o.memory_limit_bytes);
  for (uint64_t i = 0; i < 1000; ++i) {
    EXPECT_TRUE(filter.contains(url_key(i)));
    EXPECT_EQ(filter.try_insert(url_key(i)), InsertOutcome::kSeen);
  }
}

// An empty filter's estimates are +0: a -0 was printed as "estimated FPR -0" by inspect.
TEST(SeenFilter, AnEmptyFiltersEstimatesArePositiveZero) {
  SeenFilter filter(small_options(1000, 0.01));
  const SeenFilterStats s = filter.stats();
  EXPECT_EQ(s.estimated_fpr, 0.0);
  EXPECT_FALSE(std::signbit(s.estimated_fpr));
  EXPECT_FALSE(std::signbit(s.estimated_false_positives));
}

TEST(SeenFilter, TighteningZeroIsOneRightSizedLayerThatNeverGrows) {
  SeenFilterOptions o = small_options(20000, 0.01);
  o.tightening_ratio = 0.0;
  SeenFilter filter(o);
  const SeenFilterStats empty = filter.stats();
  ASSERT_EQ(empty.layers.size(), 1u);
  EXPECT_EQ(empty.layers[0].target_fpr, 0.01);  // the whole budget, not (1 - r) of it
  EXPECT_LE(empty.layers[0].bits_per_key, 10.5);
  const InsertCounts counts = insert_keys(filter, 30000);
  EXPECT_EQ(counts.fresh, 20000u);
  EXPECT_GE(counts.full, 9000u);  // the rest, less the keys falsely reported kSeen (~1%)
  EXPECT_TRUE(filter.full());
  EXPECT_NE(filter.full_reason().find("tightening_ratio 0"), std::string::npos) << filter.full_reason();
  EXPECT_EQ(filter.stats().layers.size(), 1u);
  EXPECT_LE(measured_fpr(filter, 100000, 7), 0.0115);  // its share is the target itself
  // A filter restored from it is still one layer, still full.
  SeenFilter restored(filter.snapshot());
  uint64_t absent = 1'000'000;
  while (restored.contains(url_key(absent))) ++absent;  // skip the ~1% false positives
  EXPECT_EQ(restored.try_insert(url_key(absent)), InsertOutcome::kFull);
  EXPECT_EQ(restored.stats().layers.size(), 1u);
  EXPECT_TRUE(restored.contains(url_key(19999)));
}

TEST(SeenFilter, ImpossibleOptionsNameTheOptionAndValue) {
  const auto message = [](SeenFilterOptions o) -> std::string {
    try {
      SeenFilter f(o);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "no exception";
  };
  SeenFilterOptions o;
  o.initial_capacity = 0;
  EXPECT_NE(message(o).find("initial_capacity = 0"), std::string::npos) << message(o);
  o = {};
  o.target_fpr = 1.5;
  EXPECT_NE(message(o).find("target_fpr = 1.5"), std::string::npos) << message(o);
  o = {};
  o.target_fpr = 1e-300;
  EXPECT_NE(message(o).find("unreachable"), std::string::npos) << message(o);
  o = {};
  o.growth_factor = 0.5;
  EXPECT_NE(message(o).find("growth_factor = 0.5"), std::string::npos) << message(o);
  o = {};
  o.tightening_ratio = 1.0;
  EXPECT_NE(message(o).find("tightening_ratio = 1"), std::string::npos) << message(o);
  o.tightening_ratio = -0.25;
  EXPECT_NE(message(o).find("tightening_ratio = -0.25 is outside [0, 1)"), std::string::npos) << message(o);
  o = {};
  o.memory_limit_bytes = 100;
  EXPECT_NE(message(o).find("memory_limit_bytes = 100"), std::string::npos) << message(o);
}

TEST(SeenFilter, EstimatedFalsePositivesTracksFalseKSeen) {
  // A loose filter makes false positives frequent enough to count: the estimator must agree with
  // the observed number of distinct keys wrongly reported kSeen.
  SeenFilter filter(small_options(5000, 0.05));
  uint64_t wrongly_seen = 0;
  const uint64_t n = 60000;  // cheap even under sanitizers
  for (uint64_t i = 0; i < n; ++i) wrongly_seen += filter.insert(url_key(i)) ? 0 : 1;
  const double expected = filter.stats(false).estimated_false_positives;
  ASSERT_GT(expected, 20.0);
  EXPECT_NEAR(static_cast<double>(wrongly_seen), expected, 5.0 * std::sqrt(expected) + 0.15 * expected);
}

TEST(SeenFilter, EstimatedFalsePositivesIsTheModelSummedPerInsert) {
  // The reference evaluates the FPR model before every insert that records a key; the filter's
  // figure (what `dedup --stats` prints) is computed once, from the layers' final counts. Several
  // layers, the last one partly filled.
  SeenFilter filter(small_options(400, 1e-3));
  double per_insert = 0.0;
  for (uint64_t i = 0; i < 3600; ++i) {
    const double fpr_now = filter.stats(false).estimated_fpr;
    if (filter.insert(url_key(i))) per_insert += fpr_now;
  }
  ASSERT_GE(filter.stats(false).layers.size(), 4u);
  ASSERT_GT(per_insert, 0.0);
  EXPECT_NEAR(filter.stats(false).estimated_false_positives, per_insert, 0.01 * per_insert);
}

TEST(SeenFilter, SnapshotRestoresAnIdenticalFilter) {
  SeenFilter filter(small_options(1000, 1e-4));
  for (uint64_t i = 0; i < 4500; ++i) filter.insert(url_key(i));
  SeenFilter restored(filter.snapshot());
  EXPECT_EQ(restored.size(), filter.size());
  for (uint64_t i = 0; i < 20000; ++i) {
    ASSERT_EQ(restored.contains(url_key(i)), filter.contains(url_key(i))) << i;
  }
  // Both continue identically from the same state.
  for (uint64_t i = 4500; i < 9000; ++i) ASSERT_EQ(restored.try_insert(url_key(i)), filter.try_insert(url_key(i)));
}

}  // namespace
}  // namespace bloomcrawl
