// Frontier prerequisites (requests to a host that are none of its queued URLs, e.g. robots.txt):
// they take the same politeness key as the host's URLs, its slots, delay and Crawl-delay serial
// rule, also while the host is held, and they are not pages. Time is an explicit fake clock.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "frontier/frontier.h"

namespace bloomcrawl {
namespace {

using std::chrono::milliseconds;

const Clock::time_point kPrereqT0 = Clock::time_point{} + std::chrono::hours(2000);

FrontierOptions prerequisite_options(milliseconds delay, uint32_t concurrency) {
  FrontierOptions options;
  options.default_delay = delay;
  options.default_concurrency = concurrency;
  return options;
}

TEST(FrontierPrerequisite, AHeldHostsPrerequisiteIsServedAndItsUrlsAreNot) {
  Frontier frontier(prerequisite_options(milliseconds(0), 1));
  frontier.hold_host("h");
  frontier.push("h", "u", 0);
  frontier.push_prerequisite("h", 42);
  EXPECT_FALSE(frontier.pop_ready(kPrereqT0));
  const auto lease = frontier.pop_prerequisite(kPrereqT0);
  ASSERT_TRUE(lease);
  EXPECT_EQ(lease->host, "h");
  EXPECT_EQ(lease->token, 42u);
  EXPECT_FALSE(frontier.pop_prerequisite(kPrereqT0)) << "each prerequisite is served once";
  frontier.complete_prerequisite(*lease, kPrereqT0);
  EXPECT_EQ(frontier.stats().dispatched, 0u) << "a prerequisite is not a page";
  EXPECT_THROW(frontier.complete_prerequisite(*lease, kPrereqT0), std::invalid_argument);
}

TEST(FrontierPrerequisite, TakesTheGroupsSlotAndWaitsItsDelay) {
  constexpr milliseconds kDelay{100};
  Frontier frontier(prerequisite_options(kDelay, 1));
  frontier.set_politeness_group("a.site", "site");
  frontier.set_politeness_group("b.site", "site");
  frontier.push("a.site", "a1", 0);
  frontier.push("a.site", "a2", 0);
  const auto page = frontier.pop_ready(kPrereqT0);
  ASSERT_TRUE(page);
  frontier.hold_host("b.site");
  frontier.push_prerequisite("b.site", 1);
  EXPECT_FALSE(frontier.pop_prerequisite(kPrereqT0)) << "the group's one slot is in use";
  EXPECT_FALSE(frontier.next_prerequisite_time());

  const Clock::time_point page_done = kPrereqT0 + milliseconds(10);
  frontier.complete(*page, page_done, HostOutcome::ok());
  EXPECT_EQ(frontier.next_prerequisite_time(), page_done + kDelay);
  EXPECT_FALSE(frontier.pop_prerequisite(page_done + kDelay - milliseconds(1)));
  const auto robots = frontier.pop_prerequisite(page_done + kDelay);
  ASSERT_TRUE(robots);
  EXPECT_FALSE(frontier.pop_ready(page_done + 3 * kDelay)) << "the prerequisite holds the group's slot";

  const Clock::time_point answered = page_done + 4 * kDelay;
  frontier.complete_prerequisite(*robots, answered);
  EXPECT_FALSE(frontier.pop_ready(answered + kDelay - milliseconds(1))) << "its answer started the delay";
  EXPECT_TRUE(frontier.pop_ready(answered + kDelay));
}

TEST(FrontierPrerequisite, ACrawlDelayHostsPrerequisiteWaitsForItsPageWhateverTheConcurrency) {
  Frontier frontier(prerequisite_options(milliseconds(0), 4));
  frontier.set_host_delay("h", milliseconds(200));
  frontier.push("h", "u1", 0);
  frontier.push("h", "u2", 0);
  const auto page = frontier.pop_ready(kPrereqT0);
  ASSERT_TRUE(page);
  frontier.push_prerequisite("h", 7);  // e.g. a re-fetch of its expired robots.txt
  EXPECT_FALSE(frontier.pop_prerequisite(kPrereqT0)) << "one request at a time";
  frontier.complete(*page, kPrereqT0, HostOutcome::ok());
  EXPECT_FALSE(frontier.pop_prerequisite(kPrereqT0 + milliseconds(199)));
  const auto robots = frontier.pop_prerequisite(kPrereqT0 + milliseconds(200));
  ASSERT_TRUE(robots);
  EXPECT_FALSE(frontier.pop_ready(kPrereqT0 + milliseconds(400))) << "nor a page beside the prerequisite";
}

TEST(FrontierPrerequisite, ReleasedLeavesTheClockUntouched) {
  Frontier frontier(prerequisite_options(milliseconds(1000), 1));
  frontier.push("h", "u", 0);
  frontier.push_prerequisite("h", 1);
  const auto robots = frontier.pop_prerequisite(kPrereqT0);
  ASSERT_TRUE(robots);
  EXPECT_FALSE(frontier.pop_ready(kPrereqT0));
  frontier.release_prerequisite(*robots);  // e.g. no server answered
  EXPECT_TRUE(frontier.pop_ready(kPrereqT0));
  EXPECT_THROW(frontier.release_prerequisite(*robots), std::invalid_argument);
}

TEST(FrontierPrerequisite, ServedAtThePageLimitAndKeepTheFrontierBusy) {
  FrontierOptions options = prerequisite_options(milliseconds(0), 1);
  options.max_pages = 1;
  Frontier frontier(options);
  frontier.push("h", "u", 0);
  const auto page = frontier.pop_ready(kPrereqT0);
  ASSERT_TRUE(page);
  frontier.complete(*page, kPrereqT0, HostOutcome::ok());
  ASSERT_TRUE(frontier.empty_and_idle());
  frontier.push_prerequisite("other", 3);
  EXPECT_FALSE(frontier.empty_and_idle()) << "a prerequisite waits";
  const auto robots = frontier.pop_prerequisite(kPrereqT0);
  ASSERT_TRUE(robots) << "not a page: the page limit does not apply";
  EXPECT_FALSE(frontier.empty_and_idle()) << "a prerequisite in flight";
  frontier.complete_prerequisite(*robots, kPrereqT0);
  EXPECT_TRUE(frontier.empty_and_idle());
}

TEST(FrontierPrerequisite, AHostJoiningAGroupTakesItsPrerequisitesAlong) {
  Frontier frontier(prerequisite_options(milliseconds(0), 1));
  frontier.push("a", "a1", 0);
  frontier.push_prerequisite("b", 1);
  frontier.push_prerequisite("b", 2);
  const auto first = frontier.pop_prerequisite(kPrereqT0);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->token, 1u);
  // b joins a's server with its prerequisite in flight and one waiting: the group's slot is taken.
  frontier.set_politeness_group("a", "10.0.0.1");
  frontier.set_politeness_group("b", "10.0.0.1");
  EXPECT_FALSE(frontier.pop_ready(kPrereqT0));
  EXPECT_FALSE(frontier.pop_prerequisite(kPrereqT0));
  frontier.complete_prerequisite(*first, kPrereqT0);
  const auto second = frontier.pop_prerequisite(kPrereqT0);
  ASSERT_TRUE(second) << "prerequisites are served before pages when asked first";
  EXPECT_EQ(second->token, 2u);
  EXPECT_FALSE(frontier.pop_ready(kPrereqT0));
}

TEST(FrontierPrerequisite, NoneIsServedOnceClosed) {
  Frontier frontier(prerequisite_options(milliseconds(0), 1));
  frontier.push_prerequisite("h", 1);
  frontier.close();
  EXPECT_FALSE(frontier.pop_prerequisite(kPrereqT0));
}

}  // namespace
}  // namespace bloomcrawl
