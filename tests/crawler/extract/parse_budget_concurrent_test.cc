// ParseBudget under concurrent parses: the bytes taken at once never exceed the budget, a page
// larger than the whole budget takes all of it rather than waiting forever, and every waiter ends.
#include "crawler/extract/parse_budget.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace bloomcrawl {
namespace {

TEST(ParseBudgetConcurrentTest, BytesInParseNeverExceedTheBudget) {
  constexpr size_t kCapacity = 1000;
  ParseBudget budget(kCapacity);
  std::atomic<size_t> in_use{0};
  std::atomic<size_t> most{0};
  // Counts `bytes` as in parse while the caller holds their lease.
  auto parse = [&](size_t bytes) {
    const size_t now = in_use.fetch_add(bytes) + bytes;
    size_t seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    in_use.fetch_sub(bytes);
  };
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (size_t i = 0; i < 2000; ++i) {
        const size_t bytes = 100 + (i * 37 + t * 101) % 900;  // 100..999, some pairs over the budget
        const ParseBudget::Lease lease = budget.take(bytes);
        parse(bytes);
      }
    });
  }
  threads.emplace_back([&] {
    for (size_t i = 0; i < 200; ++i) {
      const ParseBudget::Lease lease = budget.take(5 * kCapacity);  // counts as the whole budget
      parse(kCapacity);
    }
  });
  for (std::thread& t : threads) t.join();
  EXPECT_LE(most.load(), kCapacity);
}

}  // namespace
}  // namespace bloomcrawl
