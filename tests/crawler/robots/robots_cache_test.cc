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

TEST_F(RobotsCacheTest, ServerErrorsMeanDisallowAllUntilARetrySucceeds) {
  for (int status : {500, 503, 429, 0, 199, 600}) {
    RobotsCacheOptions o = options();
    o.retry_initial = minutes(1);
    o.retry_max = minutes(10);
    RobotsCache cache(o);
    cache.lookup("h", t0);
    cache.on_fetched("h", status, "", t0);
    RobotsLookup blocked = cache.lookup("h", t0 + seconds(59));
    ASSERT_EQ(blocked.state, State::kReady) << status;
    EXPECT_FALSE(blocked.rules->allowed("/")) << status;
    // Retry due after 1 min; each further failure doubles the wait: 2, 4, 8, then 10 (cap).
    auto now = t0 + minutes(1);
    for (auto wait : {minutes(2), minutes(4), minutes(8), minutes(10), minutes(10)}) {
      ASSERT_EQ(cache.lookup("h", now).state, State::kNeedFetch) << status;
      cache.on_unreachable("h", now);
      EXPECT_EQ(cache.lookup("h", now + wait - seconds(1)).state, State::kReady) << status;
      now += wait;
    }
    ASSERT_EQ(cache.lookup("h", now).state, State::kNeedFetch);
    cache.on_fetched("h", 200, "User-agent: *\nDisallow: /x\n", now);
    RobotsLookup ok = cache.lookup("h", now);
    ASSERT_EQ(ok.state, State::kReady);
    EXPECT_TRUE(ok.rules->allowed("/"));
    EXPECT_FALSE(ok.rules->allowed("/x"));
    // A later failure starts the backoff from the beginning again.
    ASSERT_EQ(cache.lookup("h", now + hours(24)).state, State::kNeedFetch);
    cache.on_unreachable("h", now + hours(24));
    EXPECT_EQ(cache.lookup("h", now + hours(24) + minutes(1)).state, State::kNeedFetch);
    EXPECT_EQ(cache.stats().unreachable, 7u) << status;
  }
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

}  // namespace
}  // namespace bloomcrawl
