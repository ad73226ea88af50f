// Concurrency contract of SeenFilter (also run under TSan): of several threads inserting
// overlapping URL sets, exactly one sees each key as new, while layers are appended, readers
// probe without locks and snapshots are taken.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "seenfilter/seen_filter.h"
#include "tests/seenfilter/url_keys.h"

namespace bloomcrawl {
namespace {

using testing::kScale;
using testing::url_key;

// 1e-9 makes a false positive (a key nobody sees as new) improbable: expected count < 1e-3.
SeenFilterOptions growing_options() {
  SeenFilterOptions o;
  o.initial_capacity = 1000 / kScale;  // small, so many layers are appended during the run
  o.target_fpr = 1e-9;
  return o;
}

TEST(SeenFilterConcurrent, ExactlyOneInserterSeesEachKeyAsNew) {
  const uint64_t keys = 200'000 / kScale;
  const int threads = 4;
  SeenFilter filter(growing_options());
  std::vector<std::string> urls;
  for (uint64_t i = 0; i < keys; ++i) urls.push_back(url_key(i));
  auto new_counts = std::make_unique<std::atomic<uint32_t>[]>(keys);
  std::vector<std::thread> workers;
  workers.reserve(threads);
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      // Each thread covers 3/4 of the keys (overlapping), in its own order, singly or by page.
      std::vector<uint64_t> order;
      for (uint64_t i = 0; i < keys; ++i) {
        if (i % 4 != static_cast<uint64_t>(t)) order.push_back(i);
      }
      std::shuffle(order.begin(), order.end(), std::mt19937_64(t));
      if (t % 2 == 0) {
        for (uint64_t i : order) {
          if (filter.insert(urls[i])) new_counts[i].fetch_add(1);
        }
        return;
      }
      std::vector<std::string_view> page;
      std::vector<InsertOutcome> outcomes;
      for (size_t start = 0; start < order.size(); start += 50) {
        page.clear();
        const size_t end = std::min(order.size(), start + 50);
        for (size_t j = start; j < end; ++j) page.push_back(urls[order[j]]);
        outcomes.resize(page.size());
        filter.insert_batch(page, outcomes);
        for (size_t j = start; j < end; ++j) {
          if (outcomes[j - start] == InsertOutcome::kNew) new_counts[order[j]].fetch_add(1);
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  for (uint64_t i = 0; i < keys; ++i) ASSERT_EQ(new_counts[i].load(), 1u) << urls[i];
  EXPECT_EQ(filter.size(), keys);
  EXPECT_GE(filter.stats(false).layers.size(), 6u);
}

TEST(SeenFilterConcurrent, ReadersAndSnapshotsNeverMissCompletedInserts) {
  const uint64_t keys = 100'000 / kScale;
  SeenFilter filter(growing_options());
  std::atomic<uint64_t> published{0};  // keys [0, published) are fully inserted
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (uint64_t i = 0; i < keys; ++i) {
      filter.insert(url_key(i));
      published.store(i + 1, std::memory_order_release);
    }
    done.store(true);
  });
  uint64_t misses = 0;
  uint64_t snapshots = 0;
  std::thread reader([&] {
    std::mt19937_64 rng(7);
    while (!done.load()) {
      const uint64_t upto = published.load(std::memory_order_acquire);
      if (upto == 0) continue;
      if (!filter.contains(url_key(rng() % upto))) ++misses;
    }
  });
  while (!done.load()) {
    const uint64_t upto = published.load(std::memory_order_acquire);
    SeenFilter copy(filter.snapshot());
    for (uint64_t i = 0; i < upto; i += 97) {
      if (!copy.contains(url_key(i))) ++misses;
    }
    ++snapshots;
  }
  writer.join();
  reader.join();
  EXPECT_EQ(misses, 0u);
  EXPECT_GT(snapshots, 0u);
}

}  // namespace
}  // namespace bloomcrawl
