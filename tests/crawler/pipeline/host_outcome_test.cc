// host_outcome(): what a page response does to its host and URL; parse_retry_after() with its cap;
// retry_cause() and FetchRetries: which attempts are fetched again, and how often.
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

FetchResult failure(FetchOutcome outcome, uint64_t header_bytes = 0) {
  FetchResult r;
  r.outcome = outcome;
  r.header_bytes = header_bytes;
  return r;
}

// docs/design.md: only a fetch the server cannot have answered is fetched again for a transport
// failure; a timeout or a reset after part of a response may have been served.
TEST(RetryCause, OnlyBackOffsAndFetchesWithNoResponseAtAll) {
  const HostOutcome error = HostOutcome::error();
  EXPECT_EQ(retry_cause(response(503), HostOutcome::backoff()), RetryCause::kBackoff);
  EXPECT_EQ(retry_cause(failure(FetchOutcome::kConnectFailed), error), RetryCause::kTransportError);
  EXPECT_EQ(retry_cause(failure(FetchOutcome::kConnectionReset), error), RetryCause::kTransportError);
  EXPECT_EQ(retry_cause(failure(FetchOutcome::kConnectionReset, /*header_bytes=*/17), error), std::nullopt);
  for (const FetchOutcome outcome :
       {FetchOutcome::kTimeout, FetchOutcome::kDnsFailed, FetchOutcome::kBlockedAddress, FetchOutcome::kHeaderTooLarge,
        FetchOutcome::kProtocolError, FetchOutcome::kTlsError, FetchOutcome::kOtherError}) {
    EXPECT_EQ(retry_cause(failure(outcome), error), std::nullopt) << fetch_outcome_name(outcome);
  }
  EXPECT_EQ(retry_cause(response(500), error), std::nullopt);
  EXPECT_EQ(retry_cause(response(200), HostOutcome::ok()), std::nullopt);
}

TEST(FetchRetries, RetriesAUrlAtMostMaxRetriesTimesThenForgetsIt) {
  FetchRetries retries(2, 0);
  const FetchResult answered = response(503);
  const HostOutcome backoff = HostOutcome::backoff();
  EXPECT_EQ(retries.take("http://a/", answered, backoff), RetryCause::kBackoff);
  EXPECT_EQ(retries.take("http://a/", answered, backoff), RetryCause::kBackoff);
  EXPECT_EQ(retries.take("http://b/", answered, backoff), RetryCause::kBackoff);  // counted per URL
  EXPECT_EQ(retries.take("http://a/", answered, backoff), std::nullopt);  // the last answer is the page's record
  EXPECT_EQ(retries.take("http://a/", answered, backoff), RetryCause::kBackoff);  // ...and the count starts over
  EXPECT_EQ(retries.take("http://b/", response(200), HostOutcome::ok()), std::nullopt);
  EXPECT_EQ(retries.take("http://b/", answered, backoff), RetryCause::kBackoff);  // a success forgot b's count
  EXPECT_EQ(retries.take("http://b/", answered, backoff), RetryCause::kBackoff);
  EXPECT_EQ(retries.take("http://c/", response(500), HostOutcome::error()), std::nullopt);
  EXPECT_EQ(FetchRetries(0, 0).take("http://a/", answered, backoff), std::nullopt);
}

TEST(FetchRetries, ATransportFailureIsRetriedUpToItsOwnLimit) {
  FetchRetries retries(0, 1);
  const FetchResult reset = failure(FetchOutcome::kConnectionReset);
  const HostOutcome error = HostOutcome::error();
  EXPECT_EQ(retries.take("http://a/", reset, error), RetryCause::kTransportError);
  EXPECT_EQ(retries.take("http://a/", reset, error), std::nullopt);  // the second failure is the record
  EXPECT_EQ(retries.take("http://a/", failure(FetchOutcome::kConnectFailed), error), RetryCause::kTransportError);
  EXPECT_EQ(retries.take("http://a/", response(200), HostOutcome::ok()), std::nullopt);
  EXPECT_EQ(retries.take("http://a/", reset, error), RetryCause::kTransportError);  // the success forgot the count
  EXPECT_EQ(retries.take("http://b/", failure(FetchOutcome::kTimeout), error), std::nullopt);
  EXPECT_EQ(FetchRetries(2, 0).take("http://a/", reset, error), std::nullopt);  // transport_retries 0
}

TEST(FetchRetries, TheTwoLimitsAreCountedApart) {
  FetchRetries retries(1, 1);
  const FetchResult reset = failure(FetchOutcome::kConnectionReset);
  // One of each, in either order: a back-off does not use up the transport retry, nor the reverse.
  EXPECT_EQ(retries.take("http://a/", reset, HostOutcome::error()), RetryCause::kTransportError);
  EXPECT_EQ(retries.take("http://a/", response(429), HostOutcome::backoff()), RetryCause::kBackoff);
  EXPECT_EQ(retries.take("http://a/", reset, HostOutcome::error()), std::nullopt);
  EXPECT_EQ(retries.take("http://b/", response(503), HostOutcome::backoff()), RetryCause::kBackoff);
  EXPECT_EQ(retries.take("http://b/", reset, HostOutcome::error()), RetryCause::kTransportError);
  EXPECT_EQ(retries.take("http://b/", response(503), HostOutcome::backoff()), std::nullopt);
}

}  // namespace
}  // namespace bloomcrawl
