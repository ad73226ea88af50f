// ResolveGate: the bound on resolves in flight, hosts known for the DNS ttl passing without a slot,
// abandoned resolves holding theirs for a while, and the wake-up when a refused caller may retry.
#include "crawler/fetch/resolve_gate.h"

#include <gtest/gtest.h>

namespace bloomcrawl {
namespace {

using Admit = ResolveGate::Admit;
using std::chrono::seconds;

const ResolveGate::Clock::time_point t0{};

TEST(ResolveGateTest, BoundsResolvesInFlightAndFreesSlots) {
  ResolveGate gate(2, seconds(60), seconds(30));
  EXPECT_EQ(gate.begin("a.example", t0), Admit::kResolving);
  EXPECT_EQ(gate.begin("b.example", t0), Admit::kResolving);
  EXPECT_EQ(gate.begin("c.example", t0), Admit::kWait);
  EXPECT_EQ(gate.in_flight(t0), 2u);
  gate.failed();
  EXPECT_EQ(gate.begin("c.example", t0), Admit::kResolving);
  EXPECT_EQ(gate.begin("d.example", t0), Admit::kWait);
}

TEST(ResolveGateTest, ResolvedHostNeedsNoSlotUntilItsTtlEnds) {
  ResolveGate gate(1, seconds(60), seconds(30));
  ASSERT_EQ(gate.begin("a.example:443", t0), Admit::kResolving);
  gate.resolved("a.example:443", t0 + seconds(1));
  ASSERT_EQ(gate.begin("b.example:443", t0 + seconds(1)), Admit::kResolving);  // holds the only slot
  EXPECT_EQ(gate.begin("a.example:443", t0 + seconds(60)), Admit::kNoResolve);
  EXPECT_EQ(gate.begin("a.example:8443", t0 + seconds(60)), Admit::kWait) << "libcurl caches per host and port";
  EXPECT_EQ(gate.begin("a.example:443", t0 + seconds(61)), Admit::kWait) << "past the ttl it resolves again";
}

TEST(ResolveGateTest, AHostResolvedAgainStaysKnownPastItsFirstTtl) {
  ResolveGate gate(2, seconds(60), seconds(30));
  // Two transfers (two threads) start before either resolve ends; the second ends later.
  ASSERT_EQ(gate.begin("a.example", t0), Admit::kResolving);
  ASSERT_EQ(gate.begin("a.example", t0), Admit::kResolving);
  gate.resolved("a.example", t0);
  gate.resolved("a.example", t0 + seconds(30));
  EXPECT_EQ(gate.in_flight(t0 + seconds(30)), 0u);
  EXPECT_EQ(gate.begin("a.example", t0 + seconds(70)), Admit::kNoResolve);
  EXPECT_EQ(gate.begin("a.example", t0 + seconds(91)), Admit::kResolving);
}

TEST(ResolveGateTest, AbandonedResolveHoldsItsSlotForTheHold) {
  ResolveGate gate(1, seconds(60), seconds(30));
  ASSERT_EQ(gate.begin("stuck.example", t0), Admit::kResolving);
  gate.abandoned(t0 + seconds(5));
  EXPECT_EQ(gate.begin("next.example", t0 + seconds(34)), Admit::kWait);
  EXPECT_EQ(gate.in_flight(t0 + seconds(34)), 1u);
  EXPECT_EQ(gate.begin("next.example", t0 + seconds(35)), Admit::kResolving);
}

TEST(ResolveGateTest, IpLiteralsAndEmptyHostsNeedNoSlot) {
  ResolveGate gate(1, seconds(60), seconds(30));
  ASSERT_EQ(gate.begin("a.example", t0), Admit::kResolving);
  EXPECT_EQ(gate.begin("127.0.0.1:8080", t0), Admit::kNoResolve);
  EXPECT_EQ(gate.begin("[::1]:443", t0), Admit::kNoResolve);
  EXPECT_EQ(gate.begin("", t0), Admit::kNoResolve);
  EXPECT_EQ(gate.begin("127.0.0.1.example", t0), Admit::kWait);
}

TEST(ResolveGateTest, WakesWaitersOnlyWhenSomeoneWasRefused) {
  int wakes = 0;
  ResolveGate gate(1, seconds(60), seconds(30), [&] { ++wakes; });
  ASSERT_EQ(gate.begin("a.example", t0), Admit::kResolving);
  gate.resolved("a.example", t0);
  EXPECT_EQ(wakes, 0);
  ASSERT_EQ(gate.begin("b.example", t0), Admit::kResolving);
  ASSERT_EQ(gate.begin("c.example", t0), Admit::kWait);
  gate.failed();
  EXPECT_EQ(wakes, 1);
}

TEST(ResolveGateTest, ResolveKeyIsTheUrlsAuthority) {
  EXPECT_EQ(resolve_key("https://Example.COM:8443/a?b#c"), "example.com:8443");
  EXPECT_EQ(resolve_key("http://user:pw@host.example/"), "host.example");
  EXPECT_EQ(resolve_key("http://host.example?q"), "host.example");
  EXPECT_EQ(resolve_key("http://[::1]:80/"), "[::1]:80");
  EXPECT_EQ(resolve_key("mailto:x@y"), "");
}

}  // namespace
}  // namespace bloomcrawl
