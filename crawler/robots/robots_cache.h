// Per-origin robots.txt state for the crawler (RFC 9309 sections 2.3 and 2.4). The cache does no
// I/O: lookup() tells the caller whether it may decide now (kReady, with the rules), must fetch
// robots.txt itself (kNeedFetch: it alone was handed the fetch), must wait for a fetch or retry
// under way (kFetching), or must not fetch from the origin because its robots.txt was given up
// (kGivenUp, with the reason). The fetching caller follows up to kRobotsMaxRedirects redirects
// and reports the final outcome with on_fetched() or on_failed(); the answer says what follows.
//
// Outcome -> rules (why: docs/robots.md):
//   2xx                     parse the body (first max_body_bytes only), kept for `ttl`
//   3xx (redirects exhausted), 4xx incl. 401/403
//                           "unavailable": allow all, kept for `ttl`
//   429, 5xx, timeouts...   RobotsFailure::kOutage
//   no DNS answer, refused  RobotsFailure::kHostUnreachable
//     With a last good copy (an expired one being fetched again), it stays in force, also while
//     the next re-fetch, due after back-off, is under way (lookup's `refetch`). Without one, the caller keeps the fetch
//     and tries again at the time given (the host waits, nothing is decided): an outage after retry_initial, doubling
//     up to retry_max, until `give_up` after the first failure; an unreachable host every unreachable_pause until
//     unreachable_attempts failures in a row (or the give-up time, whichever comes first). Then the origin is kGivenUp
//     (RFC 9309 2.3.1.4: complete disallow) for retry_max; the next fetch after that that fails gives it up again at
//     once.
// A fetch handed out but never reported is handed out again after fetch_timeout.
// Memory is bounded: erase_expired() drops entries expired for longer than keep_expired, and
// parsed rules beyond max_bytes are evicted least recently looked up first (docs/robots.md).
// Hosts are opaque keys: pass the origin ("https://example.com:8443"), since robots.txt
// applies per scheme, host and port. Thread-safe; rules are shared immutable objects, so
// checking a URL against them needs no lock. Time is passed in, so tests drive the clock.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "crawler/robots/robots.h"

namespace bloomcrawl {

inline constexpr int kRobotsMaxRedirects = 5;  // RFC 9309 section 2.3.1.2

struct RobotsCacheOptions {
  std::string user_agent = "bloomcrawl";  // token or whole User-Agent value
  std::chrono::seconds ttl = std::chrono::hours(24);
  std::chrono::milliseconds retry_initial = std::chrono::minutes(1);
  std::chrono::milliseconds retry_max = std::chrono::hours(1);
  std::chrono::milliseconds give_up = std::chrono::hours(1);  // outage: since the first failure
  uint32_t unreachable_attempts = 5;                          // unreachable host: failures in a row
  std::chrono::milliseconds unreachable_pause = std::chrono::seconds(1);
  std::chrono::seconds fetch_timeout = std::chrono::minutes(5);
  std::size_t max_body_bytes = kRobotsMaxBytes;
  // How long an expired entry outlives its expiry for erase_expired(): its rules are the last
  // good copy should the re-fetch fail.
  std::chrono::seconds keep_expired{0};
  std::size_t max_bytes = std::size_t{64} << 20;  // parsed rules and keys held
};

enum class RobotsFailure : uint8_t {
  kOutage,           // 429, 5xx, a timeout or a broken answer: the server is there, try for long
  kHostUnreachable,  // the name does not resolve or the connection is refused: give up soon
};

enum class RobotsGiveUp : uint8_t { kUnavailable, kHostUnreachable };
// The pages.jsonl outcome of a URL whose origin was given up: "robots_unavailable", "host_unreachable".
const char* robots_give_up_outcome(RobotsGiveUp reason);

struct RobotsLookup {
  enum class State { kReady, kNeedFetch, kFetching, kGivenUp };
  State state = State::kNeedFetch;
  std::shared_ptr<const RobotsRules> rules;  // set when kReady
  // kReady with the last good copy of a robots.txt whose re-fetch failed: this caller was handed
  // the next re-fetch, which the host need not wait for.
  bool refetch = false;
  RobotsGiveUp given_up = RobotsGiveUp::kUnavailable;  // when kGivenUp
};

// What a reported fetch leads to.
struct RobotsNext {
  enum class Kind {
    kSettled,       // rules in force (kReady)
    kRetry,         // the caller fetches again at `at`, the origin kFetching meanwhile
    kKeptLastGood,  // failed; the previous rules stay in force and a re-fetch is due at `at`
    kGivenUp,       // failed for good: kGivenUp until `at`
  };
  Kind kind = Kind::kSettled;
  std::chrono::steady_clock::time_point at;
  uint32_t failures = 0;                               // consecutive failed fetches, this one included
  RobotsGiveUp given_up = RobotsGiveUp::kUnavailable;  // when kGivenUp
  // kSettled, kKeptLastGood: the rules in force (the caller needs no lookup, which could hand
  // out a fetch it does not mean to make).
  std::shared_ptr<const RobotsRules> rules;
};

struct RobotsCacheStats {
  std::size_t hosts = 0;
  std::size_t bytes = 0;  // what max_bytes bounds
  std::uint64_t lookups = 0;
  std::uint64_t fetches_handed_out = 0;  // kNeedFetch answers
  std::uint64_t fetches_timed_out = 0;   // handed out again after fetch_timeout
  std::uint64_t parsed = 0;              // 2xx
  std::uint64_t unavailable = 0;         // 3xx, 4xx: allow all
  std::uint64_t unreachable = 0;         // failed fetches (429, 5xx, network errors)
  std::uint64_t given_up = 0;            // of those, the ones that gave an origin up
  std::uint64_t evicted = 0;             // entries dropped to stay under max_bytes
};

class RobotsCache {
 public:
  using Clock = std::chrono::steady_clock;

  explicit RobotsCache(RobotsCacheOptions options = {});

  RobotsLookup lookup(std::string_view host, Clock::time_point now);
  // The final HTTP status and body of the robots.txt fetch for `host`. A 429 or 5xx is an
  // outage (on_failed); `retry_after` is the server's Retry-After, if it sent one.
  RobotsNext on_fetched(std::string_view host, int http_status, std::string_view body, Clock::time_point now,
                        std::optional<Clock::time_point> retry_after = std::nullopt);
  // No answer: DNS failure, refused or reset connection, timeout, TLS error...
  RobotsNext on_failed(std::string_view host, RobotsFailure failure, Clock::time_point now,
                       std::optional<Clock::time_point> retry_after = std::nullopt);

  // Drops entries expired for longer than keep_expired, to bound memory in long crawls; returns
  // how many.
  std::size_t erase_expired(Clock::time_point now);
  RobotsCacheStats stats() const;

 private:
  struct Entry {
    bool fetching = false;                     // a fetch (or the caller's retry) is handed out
    Clock::time_point deadline;                // fetching: handed out again then; otherwise the state expires
    std::shared_ptr<const RobotsRules> rules;  // in force; after a failure, the last good copy
    std::optional<RobotsGiveUp> given_up;
    Clock::time_point first_failure;  // of the current run of failures
    uint32_t failures = 0;            // in a row, any kind
    uint32_t unreachable = 0;         // in a row, kHostUnreachable
    std::size_t bytes = 0;            // counted in bytes_
    std::list<std::string_view>::iterator lru;
  };
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  Entry& entry_locked(std::string_view host);
  void store(std::string_view host, std::shared_ptr<const RobotsRules> rules, Clock::time_point now);
  void set_rules_locked(Entry& entry, std::string_view host, std::shared_ptr<const RobotsRules> rules);
  Clock::duration backoff(uint32_t failures) const;
  Clock::duration max_wait() const;
  void erase_locked(std::string_view host);
  void evict_locked();

  const RobotsCacheOptions options_;
  const std::shared_ptr<const RobotsRules> allow_all_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry, StringHash, std::equal_to<>> entries_;
  std::list<std::string_view> lru_;  // keys of entries_, most recently looked up first
  std::size_t bytes_ = 0;
  RobotsCacheStats stats_;
};

}  // namespace bloomcrawl
