// The plain types of the Frontier API (frontier/frontier.h): options, admission results, leases,
// request outcomes and statistics. No behaviour beyond naming.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace bloomcrawl {

using Clock = std::chrono::steady_clock;

struct FrontierOptions {
  uint32_t max_depth = UINT32_MAX;  // URLs deeper than this are refused (seeds are depth 0)
  // Page limits refuse nothing: past them URLs stay queued, undispatched (a restore with a higher
  // limit dispatches them), and empty_and_idle() is true once nothing else can be dispatched.
  uint64_t max_pages = 0;                         // pages dispatched in total; 0 = unlimited
  uint64_t max_pages_per_host = 0;                // pages dispatched per host; 0 = unlimited
  uint64_t max_queued_per_host = 0;               // URLs waiting per host; 0 = unlimited
  std::chrono::milliseconds default_delay{1000};  // from a request's completion to the next start
  uint32_t default_concurrency = 1;               // requests in flight per politeness key
  uint32_t error_budget = 5;                      // consecutive failures before parking; 0 = never park
  std::chrono::seconds park_duration{600};        // also the cap on exponential back-off (not on Retry-After)
  // Every host starts held (not dispatched) until release_host(): lets the crawler fetch
  // robots.txt first without racing the workers between push() and hold_host().
  bool hold_new_hosts = false;
  // Disk mode (docs/frontier.md, "Disk mode"): queued URLs live in a RocksDB store in this
  // directory, whose previous content is discarded. Empty: every URL is kept in RAM.
  std::string store_directory;
  // Disk mode: RAM for queued URLs, the store's memtables and block cache included; beyond it
  // URLs wait on disk. Per-host scheduling state (O(hosts)) is not counted.
  uint64_t memory_limit_bytes = uint64_t{256} << 20;
  // When set, names the politeness group every host joins when it is created ("" = its own),
  // e.g. its registrable domain; a restore then asks it too rather than reading the snapshot's
  // group, so a resumed crawl groups as its configuration says. Unset: hosts join groups only
  // through set_politeness_group(), and a restore keeps the snapshot's groups.
  std::function<std::string(std::string_view host)> group_of;
};

enum class AdmitResult : uint8_t { kQueued, kTooDeep, kHostQueueFull };
inline constexpr size_t kAdmitResultCount = 3;
const char* admit_result_name(AdmitResult result);
// Which of a push's limits apply: all (an admission), all but the host queue's (a URL queued
// again after a restore), none (Frontier::keep(): a refusal that could not be recorded).
enum class PushLimits : uint8_t { kAll, kButQueue, kNone };

struct FrontierUrl {
  std::string url;
  std::string host;
  uint32_t depth = 0;
};

// A URL handed to one fetch. Give it back exactly once: complete() or release().
struct Lease {
  FrontierUrl entry;
  uint64_t lease_id = 0;
  // When popped, none of the host's queued URLs would wait for this lease's slot: none were left,
  // or (no delay between contacts) the free slots take them all at once. A hint for the caller,
  // e.g. a fetcher need not keep the connection open for a next request that may never come.
  bool surplus = false;
};

// A politeness slot taken for a prerequisite of `host` (Frontier::push_prerequisite): a request
// that is none of its queued URLs. Give it back exactly once: complete_prerequisite() or
// release_prerequisite().
struct PrerequisiteLease {
  std::string host;
  uint64_t token = 0;  // the caller's, from push_prerequisite()
  uint64_t lease_id = 0;
};

// What happened to a request, as far as politeness is concerned.
struct HostOutcome {
  enum class Kind : uint8_t { kOk, kError, kBackoff };
  Kind kind = Kind::kOk;
  // kBackoff: the server's Retry-After as a time point; nullopt = exponential back-off.
  std::optional<Clock::time_point> retry_at;

  static HostOutcome ok() { return {Kind::kOk, std::nullopt}; }
  // A failure that counts against the error budget (connection error, timeout, 5xx).
  static HostOutcome error() { return {Kind::kError, std::nullopt}; }
  // The server asked us to slow down (429, 503).
  static HostOutcome backoff(std::optional<Clock::time_point> retry_at = std::nullopt) {
    return {Kind::kBackoff, retry_at};
  }
};

struct FrontierStats {
  uint64_t queued = 0;            // URLs waiting
  uint64_t queued_url_bytes = 0;  // their raw length, the baseline for bytes_used
  uint64_t hosts = 0;             // hosts ever seen
  uint64_t active_hosts = 0;      // hosts with queued URLs that are not held
  uint64_t held_hosts = 0;
  uint64_t ready_queue_size = 0;  // politeness keys with dispatchable work (now or at a known time)
  uint64_t in_flight = 0;
  uint64_t dispatched = 0;  // leases handed out and not released
  uint64_t completed_ok = 0;
  uint64_t completed_error = 0;
  uint64_t completed_backoff = 0;
  uint64_t parks = 0;    // times a politeness key exhausted its error budget
  uint64_t retried = 0;  // leases given back with retry()
  // Indexed by AdmitResult: [kQueued] counts admitted URLs, the others refusals by reason.
  std::array<uint64_t, kAdmitResultCount> admissions{};
  uint64_t dropped = 0;     // leases given up with drop() (never fetched)
  uint64_t bytes_used = 0;  // heap bytes held by the frontier's own structures (estimate;
                            // 0 from stats(false))

  uint64_t refused(AdmitResult reason) const { return admissions[static_cast<size_t>(reason)]; }
};

}  // namespace bloomcrawl
