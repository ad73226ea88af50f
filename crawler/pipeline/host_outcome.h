// What a page response means for its host's politeness clock and for the URL: a 429 or 503 asks
// us to back off (for as long as Retry-After says, capped) and to fetch the URL again later; other
// 5xx and transport failures count against the host's error budget (a transport failure before any
// response is also fetched again, fetch.transport_retries); anything else is a success.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "crawler/fetch/fetcher.h"
#include "frontier/frontier_types.h"

namespace bloomcrawl {

struct BackoffSettings {
  bool on_429_503 = true;                      // off: 429/503 are plain errors, never retried
  std::chrono::seconds max_retry_after{3600};  // a longer Retry-After is cut to this
  uint32_t max_retries = 2;                    // re-fetches of one URL after a 429/503
};

// Retry-After (RFC 9110 10.2.3): delay-seconds or an HTTP-date, as a time point no later than
// now + cap; nullopt when absent or unreadable (the frontier then backs off exponentially).
std::optional<Clock::time_point> parse_retry_after(const std::string& value, Clock::time_point now,
                                                   std::chrono::seconds cap);

HostOutcome host_outcome(const FetchResult& result, Clock::time_point now, const BackoffSettings& backoff);

// Why a fetched URL goes back to its host queue for another attempt.
enum class RetryCause : uint8_t {
  kBackoff,         // 429/503: the server asked us to come back later
  kTransportError,  // connection refused, or closed or reset before any response byte arrived
};

// The retry a fetch calls for, before any limit: kBackoff for a back-off outcome; kTransportError
// for kConnectFailed or kConnectionReset with no response head received (the server cannot have
// answered, so a re-fetch is no duplicate of a served page). Never for a timeout (the server may
// be serving it slowly), a reset mid-response, 5xx, protocol, TLS or DNS errors (docs/design.md).
std::optional<RetryCause> retry_cause(const FetchResult& result, const HostOutcome& outcome);

// The re-fetches each URL has had, per cause, in memory only (after a crash a URL may get its
// retries again). Thread-safe.
class FetchRetries {
 public:
  FetchRetries(uint32_t max_backoff_retries, uint32_t max_transport_retries)
      : max_backoff_(max_backoff_retries), max_transport_(max_transport_retries) {}

  // The cause when this attempt should be fetched again: retry_cause() while the URL has had
  // fewer re-fetches for that cause than its limit (counted here; the two limits are
  // independent). nullopt otherwise, and then the attempt is the URL's last: its counts are
  // forgotten.
  std::optional<RetryCause> take(const std::string& url, const FetchResult& result, const HostOutcome& outcome);

 private:
  struct Counts {
    uint32_t backoff = 0;
    uint32_t transport = 0;
  };

  const uint32_t max_backoff_;
  const uint32_t max_transport_;
  std::mutex mu_;
  std::unordered_map<std::string, Counts> retries_;  // URL -> re-fetches so far
};

}  // namespace bloomcrawl
