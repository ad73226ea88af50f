// RobotsCache state transitions, driven by an explicit clock.
#include "crawler/robots/robots_cache.h"

#include <gtest/gtest.h>

namespace bloomcrawl {
namespace {

using State = RobotsLookup::State;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

class RobotsCacheTest : public ::testing::Test {
 protected:
  RobotsCache::Clock::time_point t0 = RobotsCache::Clock::time_point() + hours(1000);
  static RobotsCacheOptions options() {
    RobotsCacheOptions o;
    o.user_agent = "bloomcrawl/1.0";
    return o;
  }
};

TEST_F(RobotsCacheTest, UnknownHostIsFetchedOnceThenReady) {
  RobotsCache cache(options());
  EXPECT_EQ(cache.lookup("http://a.test", t0).state, State::kNeedFetch);
  EXPECT_EQ(cache.lookup("http://a.test", t0).state, State::kFetching);   // someone else fetches
  EXPECT_EQ(cache.lookup("http://b.test", t0).state, State::kNeedFetch);  // hosts are independent
  cache.on_fetched("http://a.test", 200, "User-agent: bloomcrawl\nDisallow: /private\n", t0);
  RobotsLookup ready = cache.lookup("http://a.test", t0 + seconds(1));
  ASSERT_EQ(ready.state, State::kReady);
  ASSERT_NE(ready.rules, nullptr);
  EXPECT_FALSE(ready.rules->allowed("http://a.test/private/x"));
  EXPECT_TRUE(ready.rules->allowed("http://a.test/public"));
  const RobotsCacheStats stats = cache.stats();
  EXPECT_EQ(stats.hosts, 2u);
  EXPECT_EQ(stats.fetches_handed_out, 2u);
  EXPECT_EQ(stats.parsed, 1u);
  EXPECT_EQ(stats.lookups, 4u);
}

TEST_F(RobotsCacheTest, RulesExpireAfterTtl) {
  RobotsCacheOptions o = options();
  o.ttl = hours(24);
  RobotsCache cache(o);
  ASSERT_EQ(cache.lookup("h", t0).state, State::kNeedFetch);
  cache.on_fetched("h", 200, "User-agent: *\nDisallow: /old\n", t0);
  EXPECT_EQ(cache.lookup("h", t0 + hours(24) - seconds(1)).state, State::kReady);
  EXPECT_EQ(cache.lookup("h", t0 + hours(24)).state, State::kNeedFetch);
  EXPECT_EQ(cache.lookup("h", t0 + hours(24)).state, State::kFetching);
  cache.on_fetched("h", 200, "User-agent: *\nDisallow: /new\n", t0 + hours(24));
  RobotsLookup ready = cache.lookup("h", t0 + hours(25));
  ASSERT_EQ(ready.state, State::kReady);
  EXPECT_TRUE(ready.rules->allowed("/old"));
  EXPECT_FALSE(ready.rules->allowed("/new"));
}

TEST_F(RobotsCacheTest, ClientErrorsMeanAllowAll) {
  for (int status : {400, 401, 403, 404, 410, 451, 301, 308}) {
    RobotsCache cache(options());
    cache.lookup("h", t0);
    cache.on_fetched("h", status, "User-agent: *\nDisallow: /\n", t0);  // body of an error page is ignored
    RobotsLookup ready = cache.lookup("h", t0 + seconds(1));
    ASSERT_EQ(ready.state, State::kReady) << status;
    EXPECT_TRUE(ready.rules->allowed("/anything")) << status;
    EXPECT_EQ(cache.lookup("h", t0 + hours(23)).state, State::kReady) << status;
    EXPECT_EQ(cache.stats().unavailable, 1u) << status;
  }
}

TEST_F(RobotsCacheTest, ServerErrorsKeepTheHostWaitingWithBackoffUntilGiveUp) {
  using Kind = RobotsNext::Kind;
  for (int status : {500, 503, 429, 0, 199, 600}) {
    RobotsCacheOptions o = options();
    o.retry_initial = minutes(1);
    o.retry_max = minutes(10);
    o.give_up = minutes(30);
    RobotsCache cache(o);
    ASSERT_EQ(cache.lookup("h", t0).state, State::kNeedFetch);
    RobotsNext next = cache.on_fetched("h", status, "", t0);
    ASSERT_EQ(next.kind, Kind::kRetry) << status;
    EXPECT_EQ(next.at, t0 + minutes(1)) << status;
    EXPECT_EQ(next.failures, 1u);
    // Nothing is decided while the host waits: no rules, and nobody else fetches.
    EXPECT_EQ(cache.lookup("h", t0 + seconds(59)).state, State::kFetching) << status;
    // Each further failure doubles the wait: 2, 4, 8, then 10 (cap); the last try is at the give-up time.
    auto now = next.at;
    for (auto at : {minutes(3), minutes(7), minutes(15), minutes(25), minutes(30)}) {
      next = cache.on_fetched("h", status, "", now);
      ASSERT_EQ(next.kind, Kind::kRetry) << status;
      EXPECT_EQ(next.at, t0 + at) << status;
      now = next.at;
    }
    next = cache.on_fetched("h", status, "", now);
    ASSERT_EQ(next.kind, Kind::kGivenUp) << status;
    EXPECT_EQ(next.given_up, RobotsGiveUp::kUnavailable);
    EXPECT_EQ(next.failures, 7u);
    EXPECT_EQ(next.at, now + minutes(10));
    RobotsLookup gone = cache.lookup("h", now + minutes(9));
    EXPECT_EQ(gone.state, State::kGivenUp) << status;
    EXPECT_EQ(gone.given_up, RobotsGiveUp::kUnavailable);
    EXPECT_STREQ(robots_give_up_outcome(gone.given_up), "robots_unavailable");
    // Given up for retry_max; one more try then, and its failure gives the host up again at once.
    ASSERT_EQ(cache.lookup("h", now + minutes(10)).state, State::kNeedFetch);
    EXPECT_EQ(cache.on_fetched("h", status, "", now + minutes(10)).kind, Kind::kGivenUp);
    // A success ends it all; a later failure starts afresh.
    ASSERT_EQ(cache.lookup("h", now + minutes(20)).state, State::kNeedFetch);
    const RobotsNext settled = cache.on_fetched("h", 200, "User-agent: *\nDisallow: /x\n", now + minutes(20));
    EXPECT_EQ(settled.kind, Kind::kSettled);
    RobotsLookup ok = cache.lookup("h", now + minutes(20));
    ASSERT_EQ(ok.state, State::kReady);
    EXPECT_EQ(settled.rules, ok.rules);  // the rules in force, without a lookup
    EXPECT_TRUE(ok.rules->allowed("/"));
    EXPECT_FALSE(ok.rules->allowed("/x"));
    const RobotsCacheStats stats = cache.stats();
    EXPECT_EQ(stats.unreachable, 8u) << status;
    EXPECT_EQ(stats.given_up, 2u) << status;
  }
}

TEST_F(RobotsCacheTest, RetryAfterLengthensTheWaitButNotPastTheGiveUpTime) {
  RobotsCacheOptions o = options();
  o.retry_initial = minutes(1);
  o.retry_max = minutes(10);
  o.give_up = minutes(30);
  RobotsCache cache(o);
  cache.lookup("h", t0);
  EXPECT_EQ(cache.on_fetched("h", 503, "", t0, t0 + minutes(5)).at, t0 + minutes(5));
  EXPECT_EQ(cache.on_fetched("h", 503, "", t0 + minutes(5), t0 + minutes(5)).at, t0 + minutes(7));  // back-off wins
  EXPECT_EQ(cache.on_fetched("h", 503, "", t0 + minutes(7), t0 + hours(5)).at, t0 + minutes(17));   // retry_max caps
  EXPECT_EQ(cache.on_fetched("h", 503, "", t0 + minutes(25), t0 + minutes(40)).at, t0 + minutes(30));
}

TEST_F(RobotsCacheTest, UnreachableHostIsGivenUpAfterItsAttempts) {
  using Kind = RobotsNext::Kind;
  RobotsCacheOptions o = options();
  o.unreachable_attempts = 3;
  o.unreachable_pause = seconds(1);
  o.give_up = hours(1);
  RobotsCache cache(o);
  ASSERT_EQ(cache.lookup("h", t0).state, State::kNeedFetch);
  RobotsNext next = cache.on_failed("h", RobotsFailure::kHostUnreachable, t0);
  ASSERT_EQ(next.kind, Kind::kRetry);
  EXPECT_EQ(next.at, t0 + seconds(1));
  // An outage between resets the count of unreachable tries: the server was there.
  next = cache.on_failed("h", RobotsFailure::kOutage, t0 + seconds(1));
  ASSERT_EQ(next.kind, Kind::kRetry);
  EXPECT_EQ(next.at, t0 + seconds(1) + 2 * o.retry_initial);  // the second failure
  auto now = next.at;
  for (int i = 0; i < 2; ++i) {
    next = cache.on_failed("h", RobotsFailure::kHostUnreachable, now);
    ASSERT_EQ(next.kind, Kind::kRetry) << i;
    EXPECT_EQ(next.at, now + seconds(1));
    now = next.at;
  }
  next = cache.on_failed("h", RobotsFailure::kHostUnreachable, now);
  ASSERT_EQ(next.kind, Kind::kGivenUp);
  EXPECT_EQ(next.given_up, RobotsGiveUp::kHostUnreachable);
  RobotsLookup gone = cache.lookup("h", now);
  EXPECT_EQ(gone.state, State::kGivenUp);
  EXPECT_STREQ(robots_give_up_outcome(gone.given_up), "host_unreachable");
}

TEST_F(RobotsCacheTest, UnreachableHostIsGivenUpAtTheGiveUpTimeWhateverItsBudget) {
  RobotsCacheOptions o = options();
  o.unreachable_attempts = UINT32_MAX;
  o.unreachable_pause = minutes(1);
  o.give_up = minutes(3);
  RobotsCache cache(o);
  cache.lookup("h", t0);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(cache.on_failed("h", RobotsFailure::kHostUnreachable, t0 + minutes(i)).kind, RobotsNext::Kind::kRetry);
  }
  EXPECT_EQ(cache.on_failed("h", RobotsFailure::kHostUnreachable, t0 + minutes(3)).kind, RobotsNext::Kind::kGivenUp);
}

TEST_F(RobotsCacheTest, AFailedRefetchKeepsTheLastGoodCopy) {
  using Kind = RobotsNext::Kind;
  RobotsCacheOptions o = options();
  o.ttl = hours(24);
  o.retry_initial = minutes(1);
  o.retry_max = minutes(10);
  o.give_up = minutes(30);
  RobotsCache cache(o);
  cache.lookup("h", t0);
  cache.on_fetched("h", 200, "User-agent: *\nDisallow: /old\n", t0);
  auto now = t0 + hours(24);
  // The re-fetch after expiry holds the host as a first fetch does.
  ASSERT_EQ(cache.lookup("h", now).state, State::kNeedFetch);
  EXPECT_EQ(cache.lookup("h", now).state, State::kFetching);
  for (RobotsFailure failure : {RobotsFailure::kOutage, RobotsFailure::kHostUnreachable, RobotsFailure::kOutage}) {
    if (now > t0 + hours(24)) {
      // Later re-fetches do not: the kept copy decides while they are under way.
      RobotsLookup due = cache.lookup("h", now);
      ASSERT_EQ(due.state, State::kReady);
      EXPECT_TRUE(due.refetch);
      due = cache.lookup("h", now);
      ASSERT_EQ(due.state, State::kReady);
      EXPECT_FALSE(due.refetch);  // handed out once
      EXPECT_FALSE(due.rules->allowed("/old"));
    }
    const RobotsNext next =
        failure == RobotsFailure::kOutage ? cache.on_fetched("h", 503, "", now) : cache.on_failed("h", failure, now);
    ASSERT_EQ(next.kind, Kind::kKeptLastGood);
    RobotsLookup kept = cache.lookup("h", next.at - seconds(1));
    ASSERT_EQ(kept.state, State::kReady);
    EXPECT_EQ(next.rules, kept.rules);
    EXPECT_FALSE(kept.rules->allowed("/old"));
    EXPECT_TRUE(kept.rules->allowed("/new"));
    now = next.at;
  }
  // Past the give-up time too: a last good copy is never given up.
  EXPECT_EQ(cache.on_failed("h", RobotsFailure::kOutage, now + hours(2)).kind, Kind::kKeptLastGood);
  cache.on_fetched("h", 200, "User-agent: *\nDisallow: /new\n", now + hours(3));
  RobotsLookup fresh = cache.lookup("h", now + hours(3));
  ASSERT_EQ(fresh.state, State::kReady);
  EXPECT_TRUE(fresh.rules->allowed("/old"));
  EXPECT_FALSE(fresh.rules->allowed("/new"));
}

TEST_F(RobotsCacheTest, AbandonedFetchIsHandedOutAgain) {
  RobotsCacheOptions o = options();
  o.fetch_timeout = minutes(5);
  RobotsCache cache(o);
  ASSERT_EQ(cache.lookup("h", t0).state, State::kNeedFetch);
  EXPECT_EQ(cache.lookup("h", t0 + minutes(5) - seconds(1)).state, State::kFetching);
  EXPECT_EQ(cache.lookup("h", t0 + minutes(5)).state, State::kNeedFetch);
  EXPECT_EQ(cache.stats().fetches_timed_out, 1u);
}

TEST_F(RobotsCacheTest, BodyIsCappedAndAgentIsUsed) {
  RobotsCacheOptions o = options();
  o.max_body_bytes = 64;
  RobotsCache cache(o);
  std::string body = "User-agent: bloomcrawl\nDisallow: /a\n";
  body += std::string(64 - body.size(), '\n') + "Disallow: /b\n";
  cache.on_fetched("h", 200, body, t0);  // unsolicited results are stored too
  RobotsLookup ready = cache.lookup("h", t0);
  ASSERT_EQ(ready.state, State::kReady);
  EXPECT_FALSE(ready.rules->allowed("/a"));
  EXPECT_TRUE(ready.rules->allowed("/b"));
  EXPECT_TRUE(ready.rules->has_group_for_agent());
}

TEST_F(RobotsCacheTest, EraseExpiredKeepsLiveAndInFlightHosts) {
  RobotsCache cache(options());
  cache.on_fetched("old", 200, "", t0);
  cache.on_fetched("new", 200, "", t0 + hours(20));
  cache.lookup("inflight", t0 + hours(25));
  EXPECT_EQ(cache.erase_expired(t0 + hours(25)), 1u);
  EXPECT_EQ(cache.stats().hosts, 2u);
  EXPECT_EQ(cache.lookup("new", t0 + hours(25)).state, State::kReady);
  EXPECT_EQ(cache.lookup("old", t0 + hours(25)).state, State::kNeedFetch);
}

TEST_F(RobotsCacheTest, ExpiredEntriesOutliveTheirExpiryByKeepExpired) {
  RobotsCacheOptions o = options();
  o.ttl = hours(24);
  o.keep_expired = hours(1);
  RobotsCache cache(o);
  cache.on_fetched("h", 200, "User-agent: *\nDisallow: /x\n", t0);
  EXPECT_EQ(cache.erase_expired(t0 + hours(25) - seconds(1)), 0u);
  EXPECT_EQ(cache.erase_expired(t0 + hours(25)), 1u);
  EXPECT_EQ(cache.stats().hosts, 0u);
  EXPECT_EQ(cache.stats().bytes, 0u);
}

TEST_F(RobotsCacheTest, RulesBeyondMaxBytesAreEvictedLeastRecentlyUsedFirst) {
  std::string big = "User-agent: *\n";
  for (int i = 0; i < 200; ++i) big += "Disallow: /some/long/path/number/" + std::to_string(i) + "\n";
  RobotsCache probe(options());
  probe.on_fetched("probe", 200, big, t0);
  const size_t one = probe.stats().bytes;
  RobotsCacheOptions o = options();
  o.max_bytes = 3 * one + one / 2;  // three hosts' rules fit, not four
  RobotsCache cache(o);
  ASSERT_EQ(cache.lookup("busy", t0).state, State::kNeedFetch);  // handed out: never evicted
  for (const char* host : {"a", "b", "c"}) cache.on_fetched(host, 200, big, t0);
  EXPECT_EQ(cache.stats().evicted, 0u);
  cache.lookup("a", t0);  // "b" is now the least recently used
  cache.on_fetched("d", 200, big, t0);
  RobotsCacheStats stats = cache.stats();
  EXPECT_EQ(stats.evicted, 1u);
  EXPECT_LE(stats.bytes, o.max_bytes);
  EXPECT_EQ(cache.lookup("b", t0).state, State::kNeedFetch);  // forgotten: fetched again
  for (const char* host : {"a", "d"}) EXPECT_EQ(cache.lookup(host, t0).state, State::kReady) << host;
  EXPECT_EQ(cache.lookup("busy", t0).state, State::kFetching);
}

}  // namespace
}  // namespace bloomcrawl
