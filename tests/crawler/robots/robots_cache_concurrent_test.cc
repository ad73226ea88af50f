// RobotsCache under concurrent use (also run under TSan): one fetch per host however many
// threads ask, and rules shared without a lock.
#include <atomic>
#include <latch>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "crawler/robots/robots_cache.h"

namespace bloomcrawl {
namespace {

using State = RobotsLookup::State;

TEST(RobotsCacheConcurrent, OneFetchPerHostAndSharedRules) {
  constexpr int kThreads = 8;
  constexpr int kHosts = 50;
  RobotsCache cache;
  const auto now = RobotsCache::Clock::time_point() + std::chrono::hours(1);
  std::atomic<int> need_fetch{0};
  std::atomic<int> disallowed{0};
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      start.arrive_and_wait();
      for (int h = 0; h < kHosts; ++h) {
        const std::string host = "http://h" + std::to_string(h) + ".test";
        if (cache.lookup(host, now).state == State::kNeedFetch) {
          ++need_fetch;
          cache.on_fetched(host, 200, "User-agent: *\nDisallow: /x\n", now);
        }
      }
      // Every host has been fetched by someone once all threads pass this point; check after
      // the join below. Meanwhile use whatever rules are ready, from several threads at once.
      for (int h = 0; h < kHosts; ++h) {
        RobotsLookup l = cache.lookup("http://h" + std::to_string(h) + ".test", now);
        if (l.state == State::kReady && !l.rules->allowed("/x/y")) ++disallowed;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(need_fetch.load(), kHosts);
  for (int h = 0; h < kHosts; ++h) {
    RobotsLookup l = cache.lookup("http://h" + std::to_string(h) + ".test", now);
    ASSERT_EQ(l.state, State::kReady);
    EXPECT_FALSE(l.rules->allowed("/x"));
  }
  EXPECT_GT(disallowed.load(), 0);
  EXPECT_EQ(cache.stats().parsed, static_cast<std::uint64_t>(kHosts));
}

}  // namespace
}  // namespace bloomcrawl
