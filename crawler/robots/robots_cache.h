// Per-host robots.txt state for the crawler (RFC 9309 sections 2.3 and 2.4). The cache does no
// I/O: lookup() tells the caller whether it may decide now (kReady, with the rules), must fetch
// robots.txt itself (kNeedFetch: it alone was handed the fetch) or must wait for another
// caller's fetch (kFetching). The fetching caller follows up to kRobotsMaxRedirects redirects
// and reports the final outcome with on_fetched() or on_unreachable().
//
// Outcome -> rules (why: docs/robots.md):
//   2xx                     parse the body (first max_body_bytes only), kept for `ttl`
//   3xx (redirects exhausted), 4xx incl. 401/403
//                           "unavailable": allow all, kept for `ttl`
//   429, 5xx, other, unreachable
//                           "unreachable": disallow all until a retry succeeds; the retry is
//                           due after retry_initial, doubling per consecutive failure up to
//                           retry_max. We keep disallowing however long it lasts.
// A fetch handed out but never reported is handed out again after fetch_timeout.
// Hosts are opaque keys: pass the origin ("https://example.com:8443"), since robots.txt
// applies per scheme, host and port. Thread-safe; rules are shared immutable objects, so
// checking a URL against them needs no lock. Time is passed in, so tests drive the clock.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "crawler/robots/robots.h"

namespace bloomcrawl {

inline constexpr int kRobotsMaxRedirects = 5;  // RFC 9309 section 2.3.1.2

struct RobotsCacheOptions {
  std::string user_agent = "bloomcrawl";  // token or whole User-Agent value
  std::chrono::seconds ttl = std::chrono::hours(24);
  std::chrono::seconds retry_initial = std::chrono::minutes(1);
  std::chrono::seconds retry_max = std::chrono::hours(1);
  std::chrono::seconds fetch_timeout = std::chrono::minutes(5);
  std::size_t max_body_bytes = kRobotsMaxBytes;
};

struct RobotsLookup {
  enum class State { kReady, kNeedFetch, kFetching };
  State state = State::kNeedFetch;
  std::shared_ptr<const RobotsRules> rules;  // set when kReady
};

struct RobotsCacheStats {
  std::size_t hosts = 0;
  std::uint64_t lookups = 0;
  std::uint64_t fetches_handed_out = 0;  // kNeedFetch answers
  std::uint64_t fetches_timed_out = 0;   // handed out again after fetch_timeout
  std::uint64_t parsed = 0;              // 2xx
  std::uint64_t unavailable = 0;         // 3xx, 4xx: allow all
  std::uint64_t unreachable = 0;         // 429, 5xx, network errors: disallow all
};

class RobotsCache {
 public:
  using Clock = std::chrono::steady_clock;

  explicit RobotsCache(RobotsCacheOptions options = {});

  RobotsLookup lookup(std::string_view host, Clock::time_point now);
  // The final HTTP status and body of the robots.txt fetch for `host`.
  void on_fetched(std::string_view host, int http_status, std::string_view body, Clock::time_point now);
  // DNS failure, refused or reset connection, timeout, TLS error...
  void on_unreachable(std::string_view host, Clock::time_point now);

  // Drops hosts whose rules have expired, to bound memory in long crawls; returns how many.
  std::size_t erase_expired(Clock::time_point now);
  RobotsCacheStats stats() const;

 private:
  struct Entry {
    bool fetching = false;
    Clock::time_point deadline;  // fetching: fetch_timeout; ready: the rules expire
    std::shared_ptr<const RobotsRules> rules;
    int consecutive_failures = 0;
  };
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  void store(std::string_view host, std::shared_ptr<const RobotsRules> rules, bool failure, Clock::time_point now);

  const RobotsCacheOptions options_;
  const std::shared_ptr<const RobotsRules> allow_all_;
  const std::shared_ptr<const RobotsRules> disallow_all_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry, StringHash, std::equal_to<>> entries_;
  RobotsCacheStats stats_;
};

}  // namespace bloomcrawl
