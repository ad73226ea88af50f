// Politeness state of one politeness key (a host, or a group of hosts sharing one server) and the
// rule that advances it when a request completes.
//
// Decision: the delay runs from the *completion* of a request to the start of the next one, not
// from start to start, so a slow server automatically gets proportionally fewer requests. With
// concurrency N, up to N requests may be in flight; each completion pushes the next permitted
// start to completion + delay. Back-off and parking set a separate `blocked_until` so that a
// short Crawl-delay cannot shorten a server's Retry-After. See docs/frontier.md.
#pragma once

#include <chrono>
#include <cstdint>

#include "frontier/frontier_types.h"

namespace bloomcrawl {

struct PolitenessClock {
  Clock::time_point next_contact = Clock::time_point::min();   // from the delay
  Clock::time_point blocked_until = Clock::time_point::min();  // back-off or park
  uint32_t in_flight = 0;
  uint32_t consecutive_failures = 0;
  uint32_t backoff_exponent = 0;  // consecutive back-offs without Retry-After

  Clock::time_point ready_at() const { return std::max(next_contact, blocked_until); }
};

// Applies one completed request. `delay` is the delay of the host the request went to.
// Returns true when the error budget ran out and the key was parked.
bool apply_outcome(PolitenessClock& clock, const HostOutcome& outcome, Clock::time_point now,
                   std::chrono::milliseconds delay, const FrontierOptions& options);

// delay * 2^exponent, at least one second per step, capped at `cap`.
Clock::duration exponential_backoff(std::chrono::milliseconds delay, uint32_t exponent, Clock::duration cap);

}  // namespace bloomcrawl
