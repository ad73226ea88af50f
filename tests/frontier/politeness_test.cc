// Back-off (Retry-After and exponential), the error budget and parking, through the Frontier
// and the pure apply_outcome() rule. Time is an explicit fake clock.
#include "frontier/politeness.h"

#include <utility>

#include <gtest/gtest.h>

#include "frontier/frontier.h"
#include "tests/support/frontier_testing.h"

namespace bloomcrawl {
namespace {

using testing::kT0;

using std::chrono::milliseconds;
using std::chrono::seconds;

FrontierOptions options(milliseconds delay, uint32_t budget = 3) {
  FrontierOptions result;
  result.default_delay = delay;
  result.error_budget = budget;
  result.park_duration = seconds(600);
  return result;
}

// A frontier with `n` URLs for host "h", and a helper to run one request with an outcome.
struct OneHost {
  explicit OneHost(FrontierOptions opts, int n = 20) : frontier(std::move(opts)) {
    for (int i = 0; i < n; ++i) {
      std::string url("u");
      url.append(std::to_string(i));
      frontier.push("h", url, 0);
    }
  }
  void request(Clock::time_point at, HostOutcome outcome) {
    auto lease = frontier.pop_ready(at);
    ASSERT_TRUE(lease) << "host not ready at +" << (at - kT0).count();
    frontier.complete(*lease, at, outcome);
  }
  Frontier frontier;
};

TEST(PolitenessTest, RetryAfterBlocksTheHostUntilThen) {
  OneHost host(options(seconds(1)));
  host.request(kT0, HostOutcome::backoff(kT0 + seconds(120)));
  EXPECT_EQ(host.frontier.next_ready_time(), kT0 + seconds(120));
  EXPECT_FALSE(host.frontier.pop_ready(kT0 + seconds(119)));
  EXPECT_TRUE(host.frontier.pop_ready(kT0 + seconds(120)));
}

// config/README.md politeness.backoff.max_retry_after_s is the one cap on Retry-After (the crawler
// applies it, host_outcome.h): park_s, here 600 s, does not cut it shorter.
TEST(PolitenessTest, RetryAfterIsNotCappedByTheParkTime) {
  OneHost host(options(seconds(1)));
  host.request(kT0, HostOutcome::backoff(kT0 + seconds(3600)));
  EXPECT_EQ(host.frontier.next_ready_time(), kT0 + seconds(3600));
}

TEST(PolitenessTest, BackoffWithoutRetryAfterDoublesAndSuccessResetsIt) {
  OneHost host(options(seconds(2)));
  Clock::time_point now = kT0;
  for (const auto expected : {seconds(2), seconds(4), seconds(8), seconds(16)}) {
    host.request(now, HostOutcome::backoff());
    ASSERT_TRUE(host.frontier.next_ready_time());
    EXPECT_EQ(*host.frontier.next_ready_time() - now, expected);
    now = *host.frontier.next_ready_time();
  }
  host.request(now, HostOutcome::ok());
  now += seconds(2);
  host.request(now, HostOutcome::backoff());
  EXPECT_EQ(*host.frontier.next_ready_time() - now, seconds(2));
}

TEST(PolitenessTest, ExponentialBackoffHasAOneSecondFloorAndACap) {
  EXPECT_EQ(exponential_backoff(milliseconds(0), 0, seconds(60)), seconds(1));
  EXPECT_EQ(exponential_backoff(milliseconds(0), 3, seconds(60)), seconds(8));
  EXPECT_EQ(exponential_backoff(seconds(10), 40, seconds(60)), seconds(60));
}

TEST(PolitenessTest, ErrorBudgetParksTheHostAndKeepsItsQueue) {
  OneHost host(options(seconds(1), 3), 5);
  host.request(kT0, HostOutcome::error());
  host.request(kT0 + seconds(1), HostOutcome::error());
  EXPECT_EQ(host.frontier.stats().parks, 0u);
  host.request(kT0 + seconds(2), HostOutcome::error());
  EXPECT_EQ(host.frontier.stats().parks, 1u);
  EXPECT_EQ(host.frontier.next_ready_time(), kT0 + seconds(602));
  EXPECT_FALSE(host.frontier.pop_ready(kT0 + seconds(601)));
  EXPECT_EQ(host.frontier.stats().queued, 2u);
  EXPECT_FALSE(host.frontier.empty_and_idle());
  EXPECT_TRUE(host.frontier.pop_ready(kT0 + seconds(602)));
}

TEST(PolitenessTest, SuccessResetsTheErrorBudget) {
  OneHost host(options(milliseconds(0), 3));
  Clock::time_point now = kT0;
  for (int round = 0; round < 4; ++round) {
    host.request(now, HostOutcome::error());
    host.request(now, HostOutcome::error());
    host.request(now, HostOutcome::ok());
  }
  EXPECT_EQ(host.frontier.stats().parks, 0u);
  EXPECT_EQ(host.frontier.stats().completed_error, 8u);
  EXPECT_EQ(host.frontier.stats().completed_ok, 4u);
}

TEST(PolitenessTest, ZeroErrorBudgetNeverParks) {
  OneHost host(options(milliseconds(0), 0));
  for (int i = 0; i < 10; ++i) host.request(kT0, HostOutcome::error());
  EXPECT_EQ(host.frontier.stats().parks, 0u);
}

TEST(PolitenessTest, BackoffSharedByAPolitenessGroup) {
  Frontier frontier(options(seconds(1)));
  frontier.set_politeness_group("a", "ip");
  frontier.set_politeness_group("b", "ip");
  frontier.push("a", "a1", 0);
  frontier.push("b", "b1", 0);
  auto lease = frontier.pop_ready(kT0);
  ASSERT_TRUE(lease);
  frontier.complete(*lease, kT0, HostOutcome::backoff(kT0 + seconds(50)));
  EXPECT_FALSE(frontier.pop_ready(kT0 + seconds(49)));
  EXPECT_TRUE(frontier.pop_ready(kT0 + seconds(50)));
}

TEST(PolitenessTest, RetryRequeuesTheUrlBehindTheBackoff) {
  OneHost host(options(seconds(1)), 2);
  Frontier& frontier = host.frontier;
  const std::optional<Lease> lease = frontier.pop_ready(kT0);
  ASSERT_TRUE(lease);
  frontier.retry(*lease, kT0, HostOutcome::backoff(kT0 + seconds(30)));
  const FrontierStats stats = frontier.stats();
  EXPECT_EQ(stats.queued, 2u);
  EXPECT_EQ(stats.dispatched, 0u);
  EXPECT_EQ(stats.retried, 1u);
  EXPECT_EQ(stats.completed_backoff, 1u);
  EXPECT_FALSE(frontier.pop_ready(kT0 + seconds(29)));
  const std::optional<Lease> again = frontier.pop_ready(kT0 + seconds(30));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->entry.url, "u0");
  EXPECT_THROW(frontier.retry(*lease, kT0, HostOutcome::ok()), std::invalid_argument);
}

TEST(PolitenessTest, ApplyOutcomeKeepsTheLaterOfDelayAndBlock) {
  PolitenessClock clock;
  const FrontierOptions opts = options(seconds(10));
  apply_outcome(clock, HostOutcome::backoff(kT0 + seconds(3)), kT0, seconds(10), opts);
  EXPECT_EQ(clock.ready_at(), kT0 + seconds(10)) << "Retry-After shorter than the delay";
}

}  // namespace
}  // namespace bloomcrawl
