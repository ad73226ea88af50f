// What a page response means for its host's politeness clock and for the URL: a 429 or 503 asks
// us to back off (for as long as Retry-After says, capped) and to fetch the URL again later; other
// 5xx and transport failures count against the host's error budget; anything else is a success.
#pragma once

#include <chrono>
#include <optional>
#include <string>

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

}  // namespace bloomcrawl
