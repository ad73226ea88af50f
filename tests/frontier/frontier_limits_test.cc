// Admission limits: each refusal carries its reason and is counted in stats().
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "frontier/frontier.h"
#include "tests/support/frontier_testing.h"

namespace bloomcrawl {
namespace {

using testing::kT0;
using testing::no_delay;

std::string url(int n) {
  std::string out("https://h/");
  out.append(std::to_string(n));
  return out;
}

TEST(FrontierLimitsTest, RefusesUrlsDeeperThanMaxDepth) {
  FrontierOptions options = no_delay(1000);
  options.max_depth = 2;
  Frontier frontier(options);
  EXPECT_EQ(frontier.push("h", "a", 2), AdmitResult::kQueued);
  bool created = true;
  EXPECT_EQ(frontier.push("other", "b", 3, &created), AdmitResult::kTooDeep);
  EXPECT_FALSE(created);
  EXPECT_FALSE(frontier.is_known_host("other")) << "a refused URL creates no host state";
  const FrontierStats stats = frontier.stats();
  EXPECT_EQ(stats.refused(AdmitResult::kTooDeep), 1u);
  EXPECT_EQ(stats.refused(AdmitResult::kQueued), 1u);
  EXPECT_EQ(stats.queued, 1u);
}

TEST(FrontierLimitsTest, PerHostQueueLimitRefusesOnlyWhileFull) {
  FrontierOptions options = no_delay(1000);
  options.max_queued_per_host = 2;
  Frontier frontier(options);
  EXPECT_EQ(frontier.push("h", url(1), 0), AdmitResult::kQueued);
  EXPECT_EQ(frontier.push("h", url(2), 0), AdmitResult::kQueued);
  EXPECT_EQ(frontier.push("h", url(3), 0), AdmitResult::kHostQueueFull);
  EXPECT_EQ(frontier.push("g", url(3), 0), AdmitResult::kQueued) << "other hosts unaffected";
  auto lease = frontier.pop_ready(kT0);
  while (lease && lease->entry.host != "h") lease = frontier.pop_ready(kT0);
  ASSERT_TRUE(lease);
  EXPECT_EQ(frontier.push("h", url(4), 0), AdmitResult::kQueued) << "room again after a dispatch";
  EXPECT_EQ(frontier.stats().refused(AdmitResult::kHostQueueFull), 1u);
}

// config/README.md scope.max_pages_per_host: at the limit a host's URLs stay queued, not refused
// (a resume with a higher limit fetches them), and other hosts go on.
TEST(FrontierLimitsTest, PerHostPageLimitKeepsTheUrlsPastItQueued) {
  FrontierOptions options = no_delay(1000);
  options.max_pages_per_host = 2;
  Frontier frontier(options);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(frontier.push("h", url(i), 0), AdmitResult::kQueued);
  EXPECT_EQ(frontier.push("g", url(9), 0), AdmitResult::kQueued);
  std::vector<std::string> dispatched;
  while (auto lease = frontier.pop_ready(kT0)) {
    dispatched.push_back(lease->entry.url);
    frontier.complete(*lease, kT0, HostOutcome::ok());
  }
  std::sort(dispatched.begin(), dispatched.end());
  EXPECT_EQ(dispatched, (std::vector<std::string>{url(0), url(1), url(9)}));
  EXPECT_EQ(frontier.stats().queued, 2u);
  EXPECT_TRUE(frontier.empty_and_idle()) << "only a host at its limit has URLs left";
  EXPECT_FALSE(frontier.next_ready_time());
}

TEST(FrontierLimitsTest, RequeueIgnoresOnlyTheHostQueueLimit) {
  FrontierOptions options = no_delay(1000);
  options.max_queued_per_host = 1;
  options.max_depth = 3;
  Frontier frontier(options);
  EXPECT_EQ(frontier.push("h", url(1), 0), AdmitResult::kQueued);
  EXPECT_EQ(frontier.push("h", url(2), 0), AdmitResult::kHostQueueFull);
  EXPECT_EQ(frontier.requeue("h", url(2), 0), AdmitResult::kQueued) << "pops since a checkpoint made room";
  EXPECT_EQ(frontier.requeue("h", url(4), 4), AdmitResult::kTooDeep) << "the depth limit still applies";
  EXPECT_EQ(frontier.stats().queued, 2u);
}

TEST(FrontierLimitsTest, KeepQueuesWhateverTheLimitsAndAClosedFrontierDispatchesNothing) {
  FrontierOptions options = no_delay(1000);
  options.max_depth = 1;
  Frontier frontier(options);
  EXPECT_EQ(frontier.push("h", url(1), 0), AdmitResult::kQueued);
  frontier.close();
  EXPECT_EQ(frontier.push("h", url(2), 5), AdmitResult::kTooDeep);
  frontier.keep("h", url(2), 5);
  EXPECT_EQ(frontier.stats().queued, 2u);
  EXPECT_FALSE(frontier.pop_ready(kT0));
  std::vector<std::string> queued;
  frontier.for_each_queued([&](std::string_view, std::string_view u, uint32_t) { queued.emplace_back(u); });
  EXPECT_EQ(queued, (std::vector<std::string>{url(1), url(2)})) << "a snapshot would carry both";
}

// A released lease (a stop, a robots.txt wait) is no page: the host may dispatch it again.
TEST(FrontierLimitsTest, ReleasedLeaseDoesNotCountAsAPage) {
  FrontierOptions options = no_delay(1000);
  options.max_pages_per_host = 1;
  Frontier frontier(options);
  EXPECT_EQ(frontier.push("h", url(1), 0), AdmitResult::kQueued);
  auto lease = frontier.pop_ready(kT0);
  ASSERT_TRUE(lease);
  EXPECT_FALSE(frontier.pop_ready(kT0)) << "at its limit while the page is in flight";
  frontier.release(*lease);
  EXPECT_TRUE(frontier.pop_ready(kT0)) << "the released URL is still dispatchable";
}

// config/README.md scope.max_pages: the crawl ends once that many pages are dispatched; the URLs
// past the limit are queued, not refused, and a restore without the limit dispatches them.
TEST(FrontierLimitsTest, GlobalPageLimitEndsTheCrawlWithTheRestQueued) {
  FrontierOptions options = no_delay(1000);
  options.max_pages = 3;
  Frontier frontier(options);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(frontier.push(url(i), url(i), 0), AdmitResult::kQueued);
  int dispatched = 0;
  while (auto lease = frontier.pop_ready(kT0)) {
    ++dispatched;
    frontier.complete(*lease, kT0, HostOutcome::error());
  }
  EXPECT_EQ(dispatched, 3);
  EXPECT_EQ(frontier.push("new", "x", 0), AdmitResult::kQueued);
  EXPECT_EQ(frontier.stats().queued, 3u);
  EXPECT_TRUE(frontier.empty_and_idle());
  EXPECT_FALSE(frontier.next_ready_time());
  Frontier raised = Frontier::restore(frontier.snapshot(), no_delay(1000));
  int after = 0;
  while (raised.pop_ready(kT0)) ++after;
  EXPECT_EQ(after, 3);
}

TEST(FrontierLimitsTest, StatsCountQueuedBytesAndMemory) {
  Frontier frontier(no_delay(1000));
  frontier.push("h", "https://h/abc", 0);
  frontier.push("g", "https://g/de", 1);
  FrontierStats stats = frontier.stats();
  EXPECT_EQ(stats.queued, 2u);
  EXPECT_EQ(stats.queued_url_bytes, 25u);
  EXPECT_EQ(stats.hosts, 2u);
  EXPECT_EQ(stats.active_hosts, 2u);
  EXPECT_EQ(stats.ready_queue_size, 2u);
  EXPECT_GT(stats.bytes_used, stats.queued_url_bytes);
  auto lease = frontier.pop_ready(kT0);
  ASSERT_TRUE(lease);
  stats = frontier.stats();
  EXPECT_EQ(stats.queued, 1u);
  EXPECT_EQ(stats.in_flight, 1u);
  EXPECT_EQ(stats.dispatched, 1u);
  EXPECT_EQ(stats.active_hosts, 1u);
}

TEST(FrontierLimitsTest, AdmitResultNamesAreDistinct) {
  EXPECT_STREQ(admit_result_name(AdmitResult::kQueued), "queued");
  EXPECT_STREQ(admit_result_name(AdmitResult::kTooDeep), "too_deep");
  EXPECT_STREQ(admit_result_name(AdmitResult::kHostQueueFull), "host_queue_full");
}

}  // namespace
}  // namespace bloomcrawl
