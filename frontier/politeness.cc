#include "frontier/politeness.h"

#include <algorithm>

namespace bloomcrawl {

Clock::duration exponential_backoff(std::chrono::milliseconds delay, uint32_t exponent, Clock::duration cap) {
  // A zero delay would make the back-off zero too; a server that said 429 gets at least 1 s.
  const auto base =
      std::chrono::duration_cast<Clock::duration>(std::max(delay, std::chrono::milliseconds(std::chrono::seconds(1))));
  Clock::duration wait = base;
  for (uint32_t i = 0; i < exponent && wait < cap; ++i) wait *= 2;
  return std::min(wait, cap);
}

bool apply_outcome(PolitenessClock& clock, const HostOutcome& outcome, Clock::time_point now,
                   std::chrono::milliseconds delay, const FrontierOptions& options) {
  const auto cap = std::chrono::duration_cast<Clock::duration>(options.park_duration);
  clock.next_contact = std::max(clock.next_contact, now + delay);
  switch (outcome.kind) {
    case HostOutcome::Kind::kOk:
      clock.consecutive_failures = 0;
      clock.backoff_exponent = 0;
      return false;
    case HostOutcome::Kind::kBackoff: {
      // Retry-After is honoured as given: its caller caps it (politeness.backoff.max_retry_after_s,
      // config/README.md), so that field alone decides how long a server may ask to wait; park_s
      // caps the back-off that doubles without one.
      Clock::time_point until =
          outcome.retry_at ? *outcome.retry_at : now + exponential_backoff(delay, clock.backoff_exponent, cap);
      if (!outcome.retry_at) ++clock.backoff_exponent;
      clock.blocked_until = std::max(clock.blocked_until, until);
      return false;
    }
    case HostOutcome::Kind::kError:
      ++clock.consecutive_failures;
      if (options.error_budget == 0 || clock.consecutive_failures < options.error_budget) return false;
      // Parked, queue kept; the key gets a fresh budget when the park ends.
      clock.consecutive_failures = 0;
      clock.blocked_until = std::max(clock.blocked_until, now + cap);
      return true;
  }
  return false;
}

}  // namespace bloomcrawl
