// ReadyQueue: earliest first, ties first-come first-served, moves and removals keep the heap whole.
#include "frontier/ready_queue.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

namespace bloomcrawl {
namespace {

using TimePoint = ReadyQueue::TimePoint;
TimePoint at(int seconds) { return TimePoint{} + std::chrono::seconds(seconds); }

TEST(ReadyQueueTest, EarliestFirstAndTiesInPlacementOrder) {
  ReadyQueue queue;
  queue.place(3, at(5));
  queue.place(1, at(2));
  queue.place(2, at(5));
  queue.place(0, at(9));
  std::vector<uint32_t> order;
  while (!queue.empty()) {
    order.push_back(queue.top_id());
    queue.remove(queue.top_id());
  }
  EXPECT_EQ(order, (std::vector<uint32_t>{1, 3, 2, 0}));
}

TEST(ReadyQueueTest, MatchesAReferenceModelUnderRandomOperations) {
  std::mt19937 random(42);
  ReadyQueue queue;
  std::map<uint32_t, int> model;
  for (int step = 0; step < 20000; ++step) {
    const uint32_t id = random() % 200;
    if (random() % 3 == 0) {
      queue.remove(id);
      model.erase(id);
    } else {
      const int time = static_cast<int>(random() % 1000);
      queue.place(id, at(time));
      model[id] = time;
    }
    ASSERT_EQ(queue.size(), model.size());
    ASSERT_EQ(queue.contains(id), model.count(id) == 1);
    if (!model.empty()) {
      int earliest = INT32_MAX;
      for (const auto& [key, time] : model) earliest = std::min(earliest, time);
      ASSERT_EQ(queue.top_time(), at(earliest));
      ASSERT_EQ(model.at(queue.top_id()), earliest);
    }
  }
}

}  // namespace
}  // namespace bloomcrawl
