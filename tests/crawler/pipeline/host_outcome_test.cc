// host_outcome(): what a page response does to its host and URL; parse_retry_after() with its cap.
#include "crawler/pipeline/host_outcome.h"

#include <gtest/gtest.h>

#include <curl/curl.h>

#include <ctime>

namespace bloomcrawl {
namespace {

using std::chrono::seconds;

FetchResult response(long status, std::string retry_after = "") {
  FetchResult r;
  r.outcome = FetchOutcome::kOk;
  r.status = status;
  r.retry_after = std::move(retry_after);
  return r;
}

TEST(RetryAfter, SecondsAndHttpDatesAreReadAndCapped) {
  const Clock::time_point now = Clock::now();
  EXPECT_EQ(parse_retry_after("120", now, seconds(3600)), now + seconds(120));
  EXPECT_EQ(parse_retry_after("0", now, seconds(3600)), now);
  EXPECT_EQ(parse_retry_after("86400", now, seconds(3600)), now + seconds(3600));  // capped
  EXPECT_EQ(parse_retry_after("99999999999999", now, seconds(60)), now + seconds(60));
  EXPECT_EQ(parse_retry_after("", now, seconds(60)), std::nullopt);
  EXPECT_EQ(parse_retry_after("soon", now, seconds(60)), std::nullopt);
  EXPECT_EQ(parse_retry_after("-5", now, seconds(60)), std::nullopt);
  // An HTTP-date in the past means "now"; one far ahead is capped.
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now, seconds(60)), now);
  EXPECT_EQ(parse_retry_after("Fri, 01 Jan 2100 00:00:00 GMT", now, seconds(60)), now + seconds(60));
  // One 100 s ahead, read back within the second the date string rounds to.
  char date[64];
  const time_t ahead = time(nullptr) + 100;
  tm ahead_utc{};
  strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", gmtime_r(&ahead, &ahead_utc));
  const auto wait = *parse_retry_after(date, now, seconds(3600)) - now;
  EXPECT_GE(wait, seconds(98));
  EXPECT_LE(wait, seconds(100));
}

TEST(HostOutcome, BackOffOn429And503WhenEnabled) {
  const Clock::time_point now = Clock::now();
  BackoffSettings backoff;
  backoff.max_retry_after = seconds(30);
  HostOutcome o = host_outcome(response(503, "3600"), now, backoff);
  EXPECT_EQ(o.kind, HostOutcome::Kind::kBackoff);
  EXPECT_EQ(o.retry_at, now + seconds(30));
  o = host_outcome(response(429), now, backoff);
  EXPECT_EQ(o.kind, HostOutcome::Kind::kBackoff);
  EXPECT_EQ(o.retry_at, std::nullopt);  // no Retry-After: the frontier's exponential back-off
  EXPECT_EQ(host_outcome(response(500), now, backoff).kind, HostOutcome::Kind::kError);
  EXPECT_EQ(host_outcome(response(404), now, backoff).kind, HostOutcome::Kind::kOk);
  EXPECT_EQ(host_outcome(response(200), now, backoff).kind, HostOutcome::Kind::kOk);
  FetchResult timeout = response(0);
  timeout.outcome = FetchOutcome::kTimeout;
  EXPECT_EQ(host_outcome(timeout, now, backoff).kind, HostOutcome::Kind::kError);
  // config/README.md politeness.backoff.on_429_503: "Off: they are errors like other 5xx".
  backoff.on_429_503 = false;
  EXPECT_EQ(host_outcome(response(503, "5"), now, backoff).kind, HostOutcome::Kind::kError);
  EXPECT_EQ(host_outcome(response(429, "5"), now, backoff).kind, HostOutcome::Kind::kError);
}

// config/README.md fetch.max_body_bytes: a page cut at the limit is a page, not a host error.
TEST(HostOutcome, ATruncatedPageIsNoHostError) {
  FetchResult cut = response(200);
  cut.body_truncated = true;
  EXPECT_EQ(host_outcome(cut, Clock::now(), BackoffSettings{}).kind, HostOutcome::Kind::kOk);
}

TEST(BackoffRetries, RetriesAUrlAtMostMaxRetriesTimesThenForgetsIt) {
  BackoffRetries retries(2);
  const HostOutcome backoff = HostOutcome::backoff();
  EXPECT_TRUE(retries.take("http://a/", backoff));
  EXPECT_TRUE(retries.take("http://a/", backoff));
  EXPECT_TRUE(retries.take("http://b/", backoff));   // counted per URL
  EXPECT_FALSE(retries.take("http://a/", backoff));  // the last answer is the page's record
  EXPECT_TRUE(retries.take("http://a/", backoff));   // ...and the count starts over
  EXPECT_FALSE(retries.take("http://b/", HostOutcome::ok()));
  EXPECT_TRUE(retries.take("http://b/", backoff));  // a success forgot b's count
  EXPECT_TRUE(retries.take("http://b/", backoff));
  EXPECT_FALSE(retries.take("http://c/", HostOutcome::error()));
  EXPECT_FALSE(BackoffRetries(0).take("http://a/", backoff));
}

}  // namespace
}  // namespace bloomcrawl
