// Frontier scheduling: breadth-first order per host, delay and concurrency, no starvation,
// hold/release and politeness groups. Time is an explicit fake clock; nothing sleeps.
#include "frontier/frontier.h"
#include "tests/support/frontier_testing.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

namespace bloomcrawl {
namespace {

using testing::kT0;
using testing::numbered;

using std::chrono::milliseconds;
using std::chrono::seconds;

// Builds "prefix<n>" by appending: GCC 12 -O3 misreports -Wrestrict on `"literal" + std::string`.
FrontierOptions options_with_delay(milliseconds delay) {
  FrontierOptions options;
  options.default_delay = delay;
  return options;
}

TEST(FrontierTest, ServesAHostBreadthFirstAndFifoWithinADepth) {
  Frontier frontier(options_with_delay(milliseconds(0)));
  frontier.push("h", "https://h/deep1", 2);
  frontier.push("h", "https://h/a", 1);
  frontier.push("h", "https://h/deep2", 2);
  frontier.push("h", "https://h/seed", 0);
  frontier.push("h", "https://h/b", 1);
  std::vector<std::string> order;
  while (auto lease = frontier.pop_ready(kT0)) {
    order.push_back(lease->entry.url);
    EXPECT_EQ(lease->entry.host, "h");
    frontier.complete(*lease, kT0, HostOutcome::ok());
  }
  EXPECT_EQ(order, (std::vector<std::string>{"https://h/seed", "https://h/a", "https://h/b", "https://h/deep1",
                                             "https://h/deep2"}));
  EXPECT_TRUE(frontier.empty_and_idle());
}

TEST(FrontierTest, LeaseCarriesDepthAndDistinctIds) {
  Frontier frontier(options_with_delay(milliseconds(0)));
  frontier.push("h1", "u1", 3);
  frontier.push("h2", "u2", 4);
  auto a = frontier.pop_ready(kT0);
  auto b = frontier.pop_ready(kT0);
  ASSERT_TRUE(a && b);
  EXPECT_NE(a->lease_id, b->lease_id);
  EXPECT_EQ(a->entry.depth + b->entry.depth, 7u);
}

TEST(FrontierTest, DelayRunsFromCompletionOfThePreviousRequest) {
  Frontier frontier(options_with_delay(seconds(2)));
  frontier.push("h", "u1", 0);
  frontier.push("h", "u2", 0);
  auto first = frontier.pop_ready(kT0);
  ASSERT_TRUE(first);
  // In flight with concurrency 1: nothing else from h, however late it is.
  EXPECT_FALSE(frontier.pop_ready(kT0 + seconds(100)));
  EXPECT_FALSE(frontier.next_ready_time());
  frontier.complete(*first, kT0 + seconds(5), HostOutcome::ok());
  EXPECT_EQ(frontier.next_ready_time(), kT0 + seconds(7));
  EXPECT_FALSE(frontier.pop_ready(kT0 + seconds(7) - milliseconds(1)));
  auto second = frontier.pop_ready(kT0 + seconds(7));
  ASSERT_TRUE(second);
  EXPECT_EQ(second->entry.url, "u2");
}

// Queues `urls` URLs of host "h" and pops all it may at kT0: each lease's Lease::surplus.
std::vector<bool> surplus_of_pops(Frontier& frontier, int urls) {
  for (int i = 0; i < urls; ++i) frontier.push("h", numbered("u", i), 0);
  std::vector<bool> surplus;
  while (auto lease = frontier.pop_ready(kT0)) surplus.push_back(lease->surplus);
  return surplus;
}

// Lease::surplus: none of the host's queued URLs will wait for this lease's slot.
TEST(FrontierTest, ALeaseIsSurplusWhenNoQueuedUrlOfItsHostNeedsItsSlot) {
  Frontier frontier(testing::no_delay(3));
  // Each pop leaves more URLs queued than free slots (4 and 2, 3 and 1, 2 and none).
  EXPECT_EQ(surplus_of_pops(frontier, 5), (std::vector<bool>{false, false, false}));
  frontier.push("g", "only", 0);
  auto only = frontier.pop_ready(kT0);
  ASSERT_TRUE(only);
  EXPECT_TRUE(only->surplus) << "the last queued URL of its host";
}

TEST(FrontierTest, LeasesAreSurplusWhenTheFreeSlotsTakeEveryQueuedUrl) {
  Frontier frontier(testing::no_delay(8));
  EXPECT_EQ(surplus_of_pops(frontier, 3), (std::vector<bool>{true, true, true}));
}

TEST(FrontierTest, WithADelayOnlyTheLastQueuedUrlIsSurplus) {
  FrontierOptions options = options_with_delay(milliseconds(10));
  options.default_concurrency = 8;
  Frontier frontier(options);
  for (int i = 0; i < 3; ++i) frontier.push("h", numbered("u", i), 0);
  std::vector<bool> surplus;
  Clock::time_point now = kT0;
  while (auto lease = frontier.pop_ready(now)) {
    surplus.push_back(lease->surplus);
    frontier.complete(*lease, now, HostOutcome::ok());
    now += milliseconds(10);
  }
  EXPECT_EQ(surplus, (std::vector<bool>{false, false, true}));
}

TEST(FrontierTest, PerHostDelayOverrideApplies) {
  Frontier frontier(options_with_delay(seconds(1)));
  frontier.set_host_delay("slow", seconds(30));
  frontier.push("slow", "u1", 0);
  frontier.push("slow", "u2", 0);
  auto lease = frontier.pop_ready(kT0);
  ASSERT_TRUE(lease);
  frontier.complete(*lease, kT0, HostOutcome::ok());
  EXPECT_EQ(frontier.next_ready_time(), kT0 + seconds(30));
}

TEST(FrontierTest, ConcurrencyCapsRequestsInFlightPerHost) {
  FrontierOptions options = options_with_delay(milliseconds(0));
  options.default_concurrency = 2;
  Frontier frontier(options);
  for (int i = 0; i < 5; ++i) frontier.push("h", numbered("u", i), 0);
  auto a = frontier.pop_ready(kT0);
  auto b = frontier.pop_ready(kT0);
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(frontier.pop_ready(kT0));
  EXPECT_EQ(frontier.stats().in_flight, 2u);
  frontier.complete(*a, kT0, HostOutcome::ok());
  EXPECT_TRUE(frontier.pop_ready(kT0));
  EXPECT_FALSE(frontier.pop_ready(kT0));
}

TEST(FrontierTest, HostConcurrencyOverride) {
  Frontier frontier(options_with_delay(milliseconds(0)));
  frontier.set_host_concurrency("h", 3);
  for (int i = 0; i < 5; ++i) frontier.push("h", numbered("u", i), 0);
  int popped = 0;
  while (frontier.pop_ready(kT0)) ++popped;
  EXPECT_EQ(popped, 3);
}

TEST(FrontierTest, ReadyHostIsServedWhileAnotherIsBusy) {
  Frontier frontier(options_with_delay(seconds(10)));
  for (int i = 0; i < 100; ++i) frontier.push("busy", numbered("b", i), 0);
  frontier.push("other", "o1", 0);
  frontier.push("other", "o2", 0);
  std::set<std::string> hosts;
  auto x = frontier.pop_ready(kT0);
  auto y = frontier.pop_ready(kT0);
  ASSERT_TRUE(x && y);
  hosts = {x->entry.host, y->entry.host};
  EXPECT_EQ(hosts, (std::set<std::string>{"busy", "other"}));
  EXPECT_FALSE(frontier.pop_ready(kT0));
}

TEST(FrontierTest, ReadyHostsAreServedRoundRobin) {
  FrontierOptions options = options_with_delay(milliseconds(0));
  options.default_concurrency = 100;
  Frontier frontier(options);
  for (int i = 0; i < 3; ++i) {
    frontier.push("a", numbered("a", i), 0);
    frontier.push("b", numbered("b", i), 0);
  }
  std::string hosts;
  for (Clock::time_point now = kT0; auto lease = frontier.pop_ready(now); now += milliseconds(1)) {
    hosts += lease->entry.host;
  }
  EXPECT_EQ(hosts, "ababab");
}

TEST(FrontierTest, EarliestHostByNextContactTimeComesFirst) {
  Frontier frontier(options_with_delay(seconds(1)));
  frontier.set_host_delay("late", seconds(9));
  frontier.set_host_delay("soon", seconds(3));
  for (const char* host : {"late", "soon"}) {
    frontier.push(host, numbered(host, 1), 0);
    frontier.push(host, numbered(host, 2), 0);
  }
  for (int i = 0; i < 2; ++i) {
    auto lease = frontier.pop_ready(kT0);
    ASSERT_TRUE(lease);
    frontier.complete(*lease, kT0, HostOutcome::ok());
  }
  EXPECT_EQ(frontier.next_ready_time(), kT0 + seconds(3));
  auto next = frontier.pop_ready(kT0 + seconds(20));
  ASSERT_TRUE(next);
  EXPECT_EQ(next->entry.host, "soon");
}

TEST(FrontierTest, HeldHostIsNotDispatchedUntilReleased) {
  Frontier frontier(options_with_delay(milliseconds(0)));
  frontier.hold_host("h");
  frontier.push("h", "u", 0);
  EXPECT_FALSE(frontier.pop_ready(kT0));
  EXPECT_FALSE(frontier.next_ready_time());
  EXPECT_EQ(frontier.stats().held_hosts, 1u);
  EXPECT_EQ(frontier.held_hosts(), std::vector<std::string>{"h"});
  frontier.release_host("h");
  EXPECT_TRUE(frontier.pop_ready(kT0));
  EXPECT_EQ(frontier.stats().held_hosts, 0u);
}

TEST(FrontierTest, ReleasedHostWaitsItsDelayAfterTheContactThatHeldIt) {
  Frontier frontier(options_with_delay(seconds(2)));
  frontier.hold_host("h");
  frontier.push("h", "u", 0);
  frontier.release_host("h", kT0);  // e.g. its robots.txt answered at kT0
  EXPECT_FALSE(frontier.pop_ready(kT0 + milliseconds(1999)));
  EXPECT_EQ(frontier.next_ready_time(), kT0 + seconds(2));
  EXPECT_TRUE(frontier.pop_ready(kT0 + seconds(2)));
}

TEST(FrontierTest, DroppedLeaseIsNotAPageAndCostsNoDelay) {
  FrontierOptions options = options_with_delay(seconds(5));
  options.max_pages = 2;
  Frontier frontier(options);
  frontier.push("h", "u1", 0);
  frontier.push("h", "u2", 0);
  auto first = frontier.pop_ready(kT0);
  ASSERT_TRUE(first);
  frontier.drop(*first);
  auto second = frontier.pop_ready(kT0);
  ASSERT_TRUE(second) << "no delay after a lease that was never fetched";
  EXPECT_EQ(second->entry.url, "u2");
  EXPECT_EQ(frontier.push("h", "u3", 0), AdmitResult::kQueued) << "the dropped URL freed its page slot";
  EXPECT_EQ(frontier.stats().dropped, 1u);
}

TEST(FrontierTest, HoldNewHostsHoldsEveryHostAtCreation) {
  FrontierOptions options = options_with_delay(milliseconds(0));
  options.hold_new_hosts = true;
  Frontier frontier(options);
  bool created = false;
  EXPECT_EQ(frontier.push("h", "u1", 0, &created), AdmitResult::kQueued);
  EXPECT_TRUE(created);
  frontier.push("h", "u2", 0, &created);
  EXPECT_FALSE(created);
  EXPECT_TRUE(frontier.is_known_host("h"));
  EXPECT_FALSE(frontier.is_known_host("other"));
  EXPECT_FALSE(frontier.pop_ready(kT0));
  frontier.release_host("h");
  EXPECT_TRUE(frontier.pop_ready(kT0));
}

TEST(FrontierTest, PolitenessGroupSharesOneClockAndSlot) {
  Frontier frontier(options_with_delay(seconds(5)));
  frontier.set_politeness_group("a.example", "10.0.0.1");
  frontier.set_politeness_group("b.example", "10.0.0.1");
  frontier.push("a.example", "a1", 0);
  frontier.push("b.example", "b1", 0);
  frontier.push("c.example", "c1", 0);
  auto first = frontier.pop_ready(kT0);
  auto second = frontier.pop_ready(kT0);
  ASSERT_TRUE(first && second);
  EXPECT_FALSE(frontier.pop_ready(kT0)) << "a and b share one concurrency slot";
  const std::string grouped = first->entry.host == "c.example" ? second->entry.host : first->entry.host;
  const Lease& grouped_lease = first->entry.host == "c.example" ? *second : *first;
  frontier.complete(grouped_lease, kT0 + seconds(1), HostOutcome::ok());
  EXPECT_FALSE(frontier.pop_ready(kT0 + seconds(5)));
  auto third = frontier.pop_ready(kT0 + seconds(6));
  ASSERT_TRUE(third);
  EXPECT_NE(third->entry.host, grouped);
  EXPECT_NE(third->entry.host, "c.example");
}

TEST(FrontierTest, JoiningAGroupCarriesInFlightRequests) {
  Frontier frontier(options_with_delay(milliseconds(0)));
  frontier.push("a", "a1", 0);
  frontier.push("b", "b1", 0);
  auto lease = frontier.pop_ready(kT0);
  ASSERT_TRUE(lease);
  const std::string other = lease->entry.host == "a" ? "b" : "a";
  frontier.set_politeness_group(lease->entry.host, "ip");
  frontier.set_politeness_group(other, "ip");
  EXPECT_FALSE(frontier.pop_ready(kT0)) << "the group's single slot is taken";
  frontier.complete(*lease, kT0, HostOutcome::ok());
  EXPECT_TRUE(frontier.pop_ready(kT0));
}

// Issue 16: Crawl-delay 0.5 s with concurrency 4 sent four requests every 0.5 s.
TEST(FrontierTest, OwnDelayMeansOneRequestInFlightWhateverTheConcurrency) {
  FrontierOptions options = options_with_delay(milliseconds(0));
  options.default_concurrency = 4;
  Frontier frontier(options);
  frontier.set_host_delay("h", milliseconds(500));
  for (int i = 0; i < 4; ++i) frontier.push("h", numbered("u", i), 0);
  auto first = frontier.pop_ready(kT0);
  ASSERT_TRUE(first);
  EXPECT_FALSE(frontier.pop_ready(kT0 + seconds(10))) << "a second request while the first is in flight";
  frontier.complete(*first, kT0 + milliseconds(100), HostOutcome::ok());
  EXPECT_FALSE(frontier.pop_ready(kT0 + milliseconds(599)));
  auto second = frontier.pop_ready(kT0 + milliseconds(600));
  ASSERT_TRUE(second);
  EXPECT_FALSE(frontier.pop_ready(kT0 + milliseconds(600)));
}

TEST(FrontierTest, AGroupWithACrawlDelayMemberRunsOneRequestAtATime) {
  FrontierOptions options = options_with_delay(milliseconds(0));
  options.default_concurrency = 4;
  Frontier frontier(options);
  for (const char* host : {"a", "b"}) {
    frontier.set_politeness_group(host, "example.com");
    frontier.push(host, numbered(host, 1), 0);
    frontier.push(host, numbered(host, 2), 0);
  }
  auto a = frontier.pop_ready(kT0);
  auto b = frontier.pop_ready(kT0);
  ASSERT_TRUE(a && b) << "no Crawl-delay yet: the concurrency applies to the group";
  frontier.set_host_delay("a", milliseconds(200));
  frontier.complete(*a, kT0, HostOutcome::ok());
  EXPECT_FALSE(frontier.pop_ready(kT0 + seconds(1))) << "one request of the group is still in flight";
  frontier.complete(*b, kT0 + seconds(1), HostOutcome::ok());
  ASSERT_TRUE(frontier.pop_ready(kT0 + seconds(1)));
  EXPECT_FALSE(frontier.pop_ready(kT0 + seconds(1)));
}

TEST(FrontierTest, LeavingAGroupTakesTheCrawlDelayAlong) {
  FrontierOptions options = options_with_delay(milliseconds(0));
  options.default_concurrency = 2;
  Frontier frontier(options);
  frontier.set_host_delay("a", milliseconds(100));
  frontier.set_politeness_group("a", "one");
  frontier.set_politeness_group("b", "one");
  frontier.set_politeness_group("a", "two");
  for (int i = 0; i < 3; ++i) frontier.push("b", numbered("b", i), 0);
  EXPECT_TRUE(frontier.pop_ready(kT0));
  EXPECT_TRUE(frontier.pop_ready(kT0)) << "b's group has no Crawl-delay member any more";
  EXPECT_FALSE(frontier.pop_ready(kT0));
}

TEST(FrontierTest, GroupOfPlacesEveryNewHostInItsGroup) {
  FrontierOptions options = options_with_delay(seconds(1));
  options.group_of = [](std::string_view host) { return host.ends_with(".example") ? "example" : ""; };
  Frontier frontier(options);
  frontier.push("a.example", "a1", 0);
  frontier.set_host_concurrency("b.example", 1);  // created outside push(): grouped all the same
  frontier.push("b.example", "b1", 0);
  frontier.push("other", "o1", 0);
  std::set<std::string> hosts;
  while (auto lease = frontier.pop_ready(kT0)) hosts.insert(lease->entry.host);
  EXPECT_EQ(hosts.size(), 2u) << "a.example and b.example share one slot, other has its own";
  EXPECT_TRUE(hosts.contains("other"));
}

TEST(FrontierTest, ReleasePutsTheLeaseBackAtTheHead) {
  Frontier frontier(options_with_delay(seconds(1)));
  frontier.push("h", "u1", 0);
  frontier.push("h", "u2", 0);
  auto lease = frontier.pop_ready(kT0);
  ASSERT_TRUE(lease);
  EXPECT_EQ(frontier.stats().dispatched, 1u);
  frontier.release(*lease);
  EXPECT_EQ(frontier.stats().dispatched, 0u);
  EXPECT_EQ(frontier.stats().queued, 2u);
  auto again = frontier.pop_ready(kT0);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->entry.url, "u1");
}

TEST(FrontierTest, GivingBackALeaseTwiceThrows) {
  Frontier frontier(options_with_delay(milliseconds(0)));
  frontier.push("h", "u1", 0);
  auto lease = frontier.pop_ready(kT0);
  ASSERT_TRUE(lease);
  frontier.complete(*lease, kT0, HostOutcome::ok());
  EXPECT_THROW(frontier.complete(*lease, kT0, HostOutcome::ok()), std::invalid_argument);
  EXPECT_THROW(frontier.release(*lease), std::invalid_argument);
}

TEST(FrontierTest, EmptyAndIdleWaitsForInFlight) {
  Frontier frontier(options_with_delay(milliseconds(0)));
  EXPECT_TRUE(frontier.empty_and_idle());
  frontier.push("h", "u", 0);
  EXPECT_FALSE(frontier.empty_and_idle());
  auto lease = frontier.pop_ready(kT0);
  EXPECT_FALSE(frontier.empty_and_idle());
  frontier.complete(*lease, kT0, HostOutcome::ok());
  EXPECT_TRUE(frontier.empty_and_idle());
}

TEST(FrontierTest, CloseStopsDispatchAndWakesWaiters) {
  Frontier frontier(options_with_delay(milliseconds(0)));
  frontier.close();
  EXPECT_TRUE(frontier.closed());
  frontier.push("h", "u", 0);
  EXPECT_FALSE(frontier.pop_ready(kT0));
  EXPECT_FALSE(frontier.wait_ready(Clock::now() + std::chrono::hours(1)));
}

TEST(FrontierTest, WaitReadyReturnsAtOnceWhenAHostIsReady) {
  Frontier frontier(options_with_delay(milliseconds(0)));
  frontier.push("h", "u", 0);
  EXPECT_TRUE(frontier.wait_ready(Clock::now() + std::chrono::hours(1)));
}

TEST(FrontierTest, WaitReadyGivesUpAtTheDeadline) {
  Frontier frontier(options_with_delay(milliseconds(0)));
  EXPECT_FALSE(frontier.wait_ready(Clock::now()));
  frontier.push("h", "u", 0);
  frontier.hold_host("h");
  EXPECT_FALSE(frontier.wait_ready(Clock::now()));
}

TEST(FrontierTest, WaitReadyWakesOnPushFromAnotherThread) {
  Frontier frontier(options_with_delay(milliseconds(0)));
  std::thread pusher([&] { frontier.push("h", "u", 0); });
  EXPECT_TRUE(frontier.wait_ready(Clock::now() + std::chrono::hours(1)));
  pusher.join();
}

TEST(FrontierTest, CloseWakesAWaiterInAnotherThread) {
  Frontier frontier(options_with_delay(milliseconds(0)));
  std::thread closer([&] { frontier.close(); });
  EXPECT_FALSE(frontier.wait_ready(Clock::now() + std::chrono::hours(1)));
  closer.join();
}

}  // namespace
}  // namespace bloomcrawl
