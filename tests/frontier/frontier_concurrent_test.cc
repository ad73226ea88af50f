// Several threads push while several workers pop, then complete, retry or release, by the real
// clock.
// Invariants: every pushed URL is completed exactly once, and no host ever has more requests in
// flight than its concurrency. Built under TSan too (file name contains "concurrent").
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "frontier/frontier.h"

namespace bloomcrawl {
namespace {

constexpr int kHosts = 16;
constexpr int kProducers = 3;
constexpr int kUrlsPerProducer = 1500;
constexpr int kWorkers = 4;
constexpr uint32_t kConcurrency = 2;

std::string host_name(int host) {
  std::string name("host");
  name.append(std::to_string(host));
  return name;
}

TEST(FrontierConcurrentTest, EveryUrlCompletedOnceWithinConcurrency) {
  FrontierOptions options;
  options.default_delay = std::chrono::milliseconds(0);
  options.default_concurrency = kConcurrency;
  options.error_budget = 2;  // parks happen, but a zero park keeps the real-clock test short
  options.park_duration = std::chrono::seconds(0);
  Frontier frontier(options);
  // Two hosts share one politeness group: together they may not exceed kConcurrency either.
  frontier.set_politeness_group(host_name(0), "shared-ip");
  frontier.set_politeness_group(host_name(1), "shared-ip");

  std::vector<std::atomic<int>> in_flight(kHosts);
  std::atomic<int> shared_group_in_flight{0};
  std::atomic<int> max_seen{0};
  std::atomic<bool> over_cap{false};
  std::atomic<int> producers_left{kProducers};
  std::mutex completed_mutex;
  std::map<std::string, int> completed;

  std::vector<std::thread> threads;
  threads.reserve(kProducers);
  for (int p = 0; p < kProducers; ++p) {
    threads.emplace_back([&, p] {
      for (int i = 0; i < kUrlsPerProducer; ++i) {
        const int host = (i * 7 + p) % kHosts;
        std::string url = host_name(host);
        url.append("/p").append(std::to_string(p)).append("/").append(std::to_string(i));
        EXPECT_EQ(frontier.push(host_name(host), url, static_cast<uint32_t>(i % 3)), AdmitResult::kQueued);
      }
      --producers_left;
    });
  }
  for (int w = 0; w < kWorkers; ++w) {
    threads.emplace_back([&, w] {
      uint64_t turn = 0;
      while (true) {
        auto lease = frontier.pop_ready(Clock::now());
        if (!lease) {
          if (producers_left == 0 && frontier.empty_and_idle()) return;
          frontier.wait_ready(Clock::now() + std::chrono::milliseconds(20));
          continue;
        }
        const int host = std::stoi(lease->entry.host.substr(4));
        const int now_in_flight = ++in_flight[host];
        if (now_in_flight > static_cast<int>(kConcurrency)) over_cap = true;
        if (host < 2 && ++shared_group_in_flight > static_cast<int>(kConcurrency)) over_cap = true;
        int seen = max_seen.load();
        while (now_in_flight > seen && !max_seen.compare_exchange_weak(seen, now_in_flight)) {
        }
        const bool put_back = (++turn + w) % 5 == 0;
        if (host < 2) --shared_group_in_flight;
        --in_flight[host];
        if (put_back) {
          frontier.release(*lease);
          continue;
        }
        if ((turn + w) % 11 == 0) {  // a 429 whose Retry-After is now: fetched again later
          frontier.retry(*lease, Clock::now(), HostOutcome::backoff(Clock::now()));
          continue;
        }
        {
          std::lock_guard lock(completed_mutex);
          ++completed[lease->entry.url];
        }
        frontier.complete(*lease, Clock::now(), turn % 7 == 0 ? HostOutcome::error() : HostOutcome::ok());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  EXPECT_FALSE(over_cap.load());
  EXPECT_GE(max_seen.load(), 1);
  ASSERT_EQ(completed.size(), static_cast<size_t>(kProducers * kUrlsPerProducer));
  for (const auto& [url, times] : completed) ASSERT_EQ(times, 1) << url;
  const FrontierStats stats = frontier.stats();
  EXPECT_EQ(stats.queued, 0u);
  EXPECT_EQ(stats.in_flight, 0u);
  EXPECT_EQ(stats.dispatched, static_cast<uint64_t>(kProducers * kUrlsPerProducer));
  EXPECT_EQ(stats.completed_ok + stats.completed_error, stats.dispatched);
  EXPECT_EQ(stats.completed_backoff, stats.retried);
  EXPECT_GT(stats.retried, 0u);
}

}  // namespace
}  // namespace bloomcrawl
