// Compact mode under concurrency (runs under TSan): inserters race over shared keys while seals and
// background jobs build runs and merge them, switching shards; exactly one insert of each key gets kNew, and a reader
// checks throughout that every key whose insert has returned kNew is found.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "seenfilter/compact_layers.h"
#include "tests/seenfilter/url_keys.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

TEST(CompactLayersConcurrent, InsertsDuringRebuildsAreExactlyOnceAndAlwaysFound) {
  testing::TempDir dir;
  SeenFilterOptions o;
  o.initial_capacity = 4000;
  o.target_fpr = 1e-6;
  o.hash_log = dir.path() / "hashlog";
  SeenFilter filter(o);
  const uint64_t keys = 160'000 / testing::kScale;
  constexpr int kWriters = 2;
  // Both writers insert every key (in different orders): each key is new to exactly one of them.
  // Atomic: the reader reads them while the writers set them.
  std::vector<std::vector<std::atomic<uint8_t>>> got_new(kWriters);
  for (auto& flags : got_new) flags = std::vector<std::atomic<uint8_t>>(keys);
  std::atomic<uint64_t> done_prefix{0};  // writer 0 has inserted keys [0, done_prefix)
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  threads.reserve(kWriters + 1);
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      std::vector<std::string> batch;
      std::vector<std::string_view> views;
      std::vector<InsertOutcome> out;
      for (uint64_t start = 0; start < keys; start += 64) {
        batch.clear();
        for (uint64_t i = start; i < std::min(keys, start + 64); ++i) {
          batch.push_back(testing::url_key(w == 0 ? i : keys - 1 - i));
        }
        views.assign(batch.begin(), batch.end());
        out.resize(views.size());
        filter.insert_batch(views, out);
        for (size_t j = 0; j < out.size(); ++j) {
          const uint64_t id = w == 0 ? start + j : keys - 1 - (start + j);
          got_new[w][id].store(out[j] == InsertOutcome::kNew ? 1 : 0, std::memory_order_release);
        }
        if (w == 0) done_prefix.store(std::min(keys, start + 64), std::memory_order_release);
      }
    });
  }
  uint64_t misses = 0;
  threads.emplace_back([&] {
    // Every key whose insert has returned kNew (to either writer) is in the filter. Not every key
    // writer 0 has inserted: one it got kSeen for by a false positive was never added, and is not
    // found once the layer that answered so is rebuilt (a CI run under TSan counted 15 such misses,
    // all of one key that writer 1 inserted, as new, only at its end).
    while (!stop.load(std::memory_order_acquire)) {
      const uint64_t upto = done_prefix.load(std::memory_order_acquire);
      for (uint64_t i = upto > 512 ? upto - 512 : 0; i < upto; ++i) {
        if (got_new[0][i].load(std::memory_order_acquire) == 0 && got_new[1][i].load(std::memory_order_acquire) == 0) {
          continue;
        }
        misses += filter.contains(testing::url_key(i)) ? 0 : 1;
      }
      if (upto == keys) break;
    }
  });
  for (int w = 0; w < kWriters; ++w) threads[static_cast<size_t>(w)].join();
  stop.store(true, std::memory_order_release);
  threads.back().join();
  EXPECT_EQ(misses, 0u);
  uint64_t news = 0, both = 0;
  for (uint64_t i = 0; i < keys; ++i) {
    news += got_new[0][i] + got_new[1][i];
    both += got_new[0][i] & got_new[1][i];
  }
  EXPECT_EQ(both, 0u) << "a key reported new to both writers";
  EXPECT_EQ(filter.size(), news);
  EXPECT_GE(news, keys - 3) << "at most a few false positives at 1e-6";
  filter.compact_layers()->wait_for_rebuild();
  EXPECT_GE(filter.compact_layers()->rebuilds(), 3u) << "merges";
  EXPECT_GE(filter.compact_layers()->runs_built(), 1u);
  for (uint64_t i = 0; i < keys; ++i) {
    if (got_new[0][i] | got_new[1][i]) {
      ASSERT_TRUE(filter.contains(testing::url_key(i))) << i;
    }
  }
}

}  // namespace
}  // namespace bloomcrawl
