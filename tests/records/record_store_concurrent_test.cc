// RecordStore's lookups from other threads while one thread puts and writes batches
// (records/record_store.h, "Threads"): every record put before a lookup is seen by it.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "records/record_store.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

UrlRecord concurrent_record(const std::string& url) {
  UrlRecord r;
  r.url = url;
  r.depth = 1;
  return r;
}

std::string concurrent_page(int host, int i) {
  return "https://h" + std::to_string(host) + ".example/" + std::to_string(i);
}

TEST(RecordStoreConcurrentTest, LookupsRunConcurrentlyWithPuts) {
  testing::TempDir dir;
  RecordStore store(dir.path() / "records-live", 4 << 20);
  for (int i = 0; i < 500; ++i) store.put(concurrent_record(concurrent_page(0, i)));
  std::atomic<bool> done{false};
  std::atomic<int> misses{0};
  std::thread reader([&] {
    std::vector<std::string> urls;
    urls.reserve(500);
    for (int i = 0; i < 500; ++i) urls.push_back(concurrent_page(0, i));
    const std::vector<std::string_view> views(urls.begin(), urls.end());
    do {
      for (const std::optional<UrlRecord>& r : store.get_many(views)) misses += r ? 0 : 1;
    } while (!done.load());
  });
  for (int i = 500; i < 6000; ++i) {
    store.put(concurrent_record(concurrent_page(i % 9, i)));
    // Outcomes too, on records the reader looks up: in the batch and as operands over written ones.
    store.update(concurrent_page(0, i % 500), RecordOutcome{.outcome = UrlOutcome::kDropped, .reason = "stop"});
  }
  store.flush();
  done = true;
  reader.join();
  EXPECT_EQ(misses.load(), 0) << "a record put before the lookup started was not seen";
  EXPECT_EQ(store.get(concurrent_page(0, 499))->reason, "stop");
}

}  // namespace
}  // namespace bloomcrawl
