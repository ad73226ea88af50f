// The server-side record of every request the test web answered, and the politeness and
// duplicate metrics computed from it. Thread-safe: server threads call begin()/end() concurrently.
//
// A request is classified when it begins: its canonical URL (site_url.h canonical form), whether
// robots.txt disallows it (a "robots violation"), whether it is a nofollow-only page, whether it is
// in the trap. "In flight" counts requests to the same host that have begun and not ended,
// including this one.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bloomcrawl::testweb {

using SteadyTime = std::chrono::steady_clock::time_point;

struct LoggedRequest {
  std::string host;           // the host (address) the request arrived on
  std::string target;         // raw path+query as sent
  std::string canonical_url;  // http://host:port + canonical path+query
  std::string method;
  SteadyTime start;
  SteadyTime end;  // when the handler finished (the response is written right after)
  int status = 0;
  uint32_t in_flight = 0;   // requests to this host in flight when this one began, itself included
  bool robots_txt = false;  // a fetch of /robots.txt
  bool robots_violation = false;
  bool nofollow_violation = false;
  bool trap = false;
  bool unknown_url = false;  // a URL the site never links to (usually a mis-resolved link); 404
};

struct HostSummary {
  std::string host;
  uint64_t requests = 0;  // robots.txt included
  uint64_t robots_txt_fetches = 0;
  uint64_t requests_before_robots_txt = 0;  // page requests answered before the first robots.txt
  uint32_t max_in_flight = 0;
  // Smallest gap between consecutive requests to the host (by start time); none with fewer than
  // two (finished) requests. End-to-start is negative when requests overlapped.
  std::optional<double> min_interval_start_to_start_ms;
  std::optional<double> min_interval_end_to_start_ms;
};

struct DuplicateUrl {
  std::string url;
  uint64_t fetches = 0;
  bool after_server_error = false;  // every refetch followed a 5xx answer (a retry)
};

struct FetchLogSummary {
  uint64_t requests = 0;
  uint64_t page_requests = 0;                         // requests other than robots.txt
  uint64_t distinct_urls = 0;                         // distinct canonical URLs among page requests
  uint64_t duplicate_fetches = 0;                     // sum over URLs of (fetches - 1), robots.txt excluded
  uint64_t duplicate_fetches_after_server_error = 0;  // the part of it that retried a 5xx
  uint64_t robots_violations = 0;
  uint64_t nofollow_violations = 0;
  uint64_t trap_requests = 0;
  uint64_t unknown_url_requests = 0;
  uint64_t robots_txt_fetches = 0;
  uint32_t max_in_flight_per_host = 0;
  std::vector<HostSummary> hosts;
  std::vector<DuplicateUrl> duplicates;     // sorted by url
  std::vector<std::string> violating_urls;  // robots violations, sorted, distinct
  std::vector<std::string> unknown_urls;    // sorted, distinct
  std::map<int, uint64_t> status_counts;
};

nlohmann::json to_json(const FetchLogSummary& summary);
// `origin` is the time that becomes 0 ms in the output.
nlohmann::json to_json(const LoggedRequest& request, SteadyTime origin);

class FetchLog {
 public:
  // Identifies a begun request for end(); stays valid across clear().
  struct Ticket {
    size_t index;
    uint64_t generation;
    std::string host;
  };

  // Records the start of a request.
  Ticket begin(LoggedRequest request);
  void end(const Ticket& ticket, int status);

  std::vector<LoggedRequest> requests() const;
  uint32_t in_flight() const;  // over all hosts
  FetchLogSummary summary() const;
  // Forgets the logged requests (a test's next phase starts from zero); requests in flight still
  // count as in flight but are not logged when they end.
  void clear();

 private:
  mutable std::mutex mutex_;
  uint64_t generation_ = 0;  // bumped by clear()
  std::vector<LoggedRequest> requests_;
  std::map<std::string, uint32_t> in_flight_by_host_;
};

// The metrics of a finished or ongoing log.
FetchLogSummary summarize(const std::vector<LoggedRequest>& requests);

}  // namespace bloomcrawl::testweb
