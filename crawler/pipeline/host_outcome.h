// What a page response means for its host's politeness clock and for the URL: a 429 or 503 asks
// us to back off (for as long as Retry-After says, capped) and to fetch the URL again later; other
// 5xx and transport failures count against the host's error budget; anything else is a success.
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

// The re-fetches each URL has had after a 429/503, in memory only (after a crash a URL may get its
// retries again). Thread-safe.
class BackoffRetries {
 public:
  explicit BackoffRetries(uint32_t max_retries) : max_retries_(max_retries) {}

  // True when this response should be fetched again: a back-off while the URL has had fewer than
  // `max_retries` re-fetches (counted here). Any other outcome, or the last allowed one,
  // forgets the URL's count.
  bool take(const std::string& url, const HostOutcome& outcome);

 private:
  const uint32_t max_retries_;
  std::mutex mu_;
  std::unordered_map<std::string, uint32_t> retries_;  // URL -> re-fetches so far
};

}  // namespace bloomcrawl
