// Shared by the frontier tests: a fixed start time, options without delay, numbered names.
// kT0 lies far from the clock's zero, so that "now - delay" never goes below it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "frontier/frontier_types.h"

namespace bloomcrawl::testing {

inline const Clock::time_point kT0 = Clock::time_point{} + std::chrono::hours(1000);

// Frontier options without a politeness delay, `concurrency` requests per host at a time.
inline FrontierOptions no_delay(uint32_t concurrency = 1) {
  FrontierOptions options;
  options.default_delay = std::chrono::milliseconds(0);
  options.default_concurrency = concurrency;
  return options;
}

// "h" and 7 -> "h7".
inline std::string numbered(std::string_view prefix, uint64_t n) {
  std::string out(prefix);
  out.append(std::to_string(n));
  return out;
}

}  // namespace bloomcrawl::testing
