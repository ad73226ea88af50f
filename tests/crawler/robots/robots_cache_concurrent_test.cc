// RobotsCache under concurrent use (also run under TSan): one fetch per host however many
// threads ask, rules shared without a lock, and failures, expiry sweeps and evictions racing
// lookups.
#include <atomic>
#include <vector>

#include <gtest/gtest.h>

#include "crawler/robots/robots_cache.h"
#include "tests/support/run_concurrently.h"

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
  testing::run_concurrently(kThreads, [&](int) {
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
  EXPECT_EQ(need_fetch.load(), kHosts);
  for (int h = 0; h < kHosts; ++h) {
    RobotsLookup l = cache.lookup("http://h" + std::to_string(h) + ".test", now);
    ASSERT_EQ(l.state, State::kReady);
    EXPECT_FALSE(l.rules->allowed("/x"));
  }
  EXPECT_GT(disallowed.load(), 0);
  EXPECT_EQ(cache.stats().parsed, static_cast<std::uint64_t>(kHosts));
}

TEST(RobotsCacheConcurrent, FailuresSweepsAndEvictionsNeverHandOutAFetchTwice) {
  constexpr int kThreads = 8;
  constexpr int kHosts = 64;
  constexpr int kRounds = 200;
  RobotsCacheOptions o;
  o.ttl = std::chrono::seconds(1);
  o.retry_initial = std::chrono::milliseconds(1);
  o.retry_max = std::chrono::milliseconds(4);
  o.give_up = std::chrono::milliseconds(8);
  o.unreachable_attempts = 3;
  o.unreachable_pause = std::chrono::milliseconds(1);
  o.max_bytes = size_t{16} << 10;  // a few hosts' rules: evictions all the time
  RobotsCache cache(o);
  const auto t0 = RobotsCache::Clock::time_point() + std::chrono::hours(1);
  std::vector<std::atomic<bool>> fetching(kHosts);
  std::atomic<int> double_handouts{0};
  std::string rules = "User-agent: *\n";
  for (int i = 0; i < 50; ++i) rules += "Disallow: /private/" + std::to_string(i) + "\n";
  testing::run_concurrently(kThreads, [&](int t) {
    for (int round = 0; round < kRounds; ++round) {
      // A clock that every thread moves forward a millisecond a round.
      const auto now = t0 + std::chrono::milliseconds(round);
      for (int h = 0; h < kHosts; ++h) {
        const std::string host = "http://h" + std::to_string(h) + ".test";
        const RobotsLookup l = cache.lookup(host, now);
        if (l.state == State::kReady) {
          EXPECT_FALSE(l.rules->allowed("/private/1/x"));
        }
        if (l.state != State::kNeedFetch && !l.refetch) continue;
        // This thread holds the host's fetch until it reports it.
        if (fetching[h].exchange(true)) ++double_handouts;
        fetching[h].store(false);
        // Hosts fail in turns: outages, unreachable, successes; a retry is made at its time,
        // by the thread that holds the fetch.
        RobotsNext next;
        auto at = now;
        do {
          switch ((h + round) % 3) {
            case 0: next = cache.on_fetched(host, 503, "", at); break;
            case 1: next = cache.on_failed(host, RobotsFailure::kHostUnreachable, at); break;
            default: next = cache.on_fetched(host, 200, rules, at); break;
          }
          at = next.at;
        } while (next.kind == RobotsNext::Kind::kRetry);
      }
      if (t == 0) cache.erase_expired(now);
    }
  });
  EXPECT_EQ(double_handouts.load(), 0);
  const RobotsCacheStats stats = cache.stats();
  EXPECT_GT(stats.evicted, 0u);
  EXPECT_GT(stats.given_up, 0u);
}

}  // namespace
}  // namespace bloomcrawl
