#include "tests/support/fetch_log.h"

#include <algorithm>
#include <set>

namespace bloomcrawl::testweb {
namespace {

double milliseconds(SteadyTime::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

HostSummary summarize_host(const std::string& host, std::vector<const LoggedRequest*> requests) {
  HostSummary out;
  out.host = host;
  std::sort(requests.begin(), requests.end(),
            [](const LoggedRequest* a, const LoggedRequest* b) { return a->start < b->start; });
  out.requests = requests.size();
  const LoggedRequest* first_robots = nullptr;
  for (const LoggedRequest* r : requests) {
    out.max_in_flight = std::max(out.max_in_flight, r->in_flight);
    if (r->robots_txt) {
      ++out.robots_txt_fetches;
      if (!first_robots) first_robots = r;
    }
  }
  for (const LoggedRequest* r : requests) {
    if (!r->robots_txt && (!first_robots || r->start < first_robots->end)) ++out.requests_before_robots_txt;
  }
  auto keep_smaller = [](std::optional<double>& smallest, double value) {
    if (!smallest || value < *smallest) smallest = value;
  };
  for (size_t i = 1; i < requests.size(); ++i) {
    keep_smaller(out.min_interval_start_to_start_ms, milliseconds(requests[i]->start - requests[i - 1]->start));
    if (requests[i - 1]->status != 0)  // 0: still running, no end yet
      keep_smaller(out.min_interval_end_to_start_ms, milliseconds(requests[i]->start - requests[i - 1]->end));
  }
  return out;
}

nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace

FetchLog::Ticket FetchLog::begin(LoggedRequest request) {
  std::lock_guard lock(mutex_);
  request.in_flight = ++in_flight_by_host_[request.host];
  Ticket ticket{requests_.size(), generation_, request.host};
  requests_.push_back(std::move(request));
  return ticket;
}

void FetchLog::end(const Ticket& ticket, int status) {
  std::lock_guard lock(mutex_);
  --in_flight_by_host_[ticket.host];
  if (ticket.generation != generation_) return;  // begun before clear(): its record is gone
  LoggedRequest& request = requests_[ticket.index];
  request.end = std::chrono::steady_clock::now();
  request.status = status;
}

std::vector<LoggedRequest> FetchLog::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

uint32_t FetchLog::in_flight() const {
  std::lock_guard lock(mutex_);
  uint32_t total = 0;
  for (const auto& [host, count] : in_flight_by_host_) total += count;
  return total;
}

FetchLogSummary FetchLog::summary() const { return summarize(requests()); }

void FetchLog::clear() {
  std::lock_guard lock(mutex_);
  requests_.clear();
  ++generation_;
}

FetchLogSummary summarize(const std::vector<LoggedRequest>& requests) {
  FetchLogSummary out;
  std::map<std::string, std::vector<const LoggedRequest*>> by_host;
  std::map<std::string, std::vector<const LoggedRequest*>> by_url;
  std::set<std::string> violating;
  std::set<std::string> unknown;
  for (const LoggedRequest& r : requests) {
    ++out.requests;
    ++out.status_counts[r.status];
    by_host[r.host].push_back(&r);
    if (r.robots_txt) {
      ++out.robots_txt_fetches;
      continue;
    }
    ++out.page_requests;
    by_url[r.canonical_url].push_back(&r);
    if (r.robots_violation) {
      ++out.robots_violations;
      violating.insert(r.canonical_url);
    }
    out.nofollow_violations += r.nofollow_violation;
    out.trap_requests += r.trap;
    if (r.unknown_url) {
      ++out.unknown_url_requests;
      unknown.insert(r.canonical_url);
    }
  }
  out.distinct_urls = by_url.size();
  for (const auto& [url, fetches] : by_url) {
    if (fetches.size() < 2) continue;
    DuplicateUrl duplicate{url, fetches.size(), true};
    for (size_t i = 0; i + 1 < fetches.size(); ++i) duplicate.after_server_error &= fetches[i]->status >= 500;
    out.duplicate_fetches += fetches.size() - 1;
    if (duplicate.after_server_error) out.duplicate_fetches_after_server_error += fetches.size() - 1;
    out.duplicates.push_back(std::move(duplicate));
  }
  for (const auto& [host, host_requests] : by_host) {
    out.hosts.push_back(summarize_host(host, host_requests));
    out.max_in_flight_per_host = std::max(out.max_in_flight_per_host, out.hosts.back().max_in_flight);
  }
  out.violating_urls.assign(violating.begin(), violating.end());
  out.unknown_urls.assign(unknown.begin(), unknown.end());
  return out;
}

nlohmann::json to_json(const FetchLogSummary& s) {
  nlohmann::json hosts = nlohmann::json::array();
  for (const auto& h : s.hosts) {
    hosts.push_back({{"host", h.host},
                     {"requests", h.requests},
                     {"robots_txt_fetches", h.robots_txt_fetches},
                     {"requests_before_robots_txt", h.requests_before_robots_txt},
                     {"max_in_flight", h.max_in_flight},
                     {"min_interval_start_to_start_ms", optional_json(h.min_interval_start_to_start_ms)},
                     {"min_interval_end_to_start_ms", optional_json(h.min_interval_end_to_start_ms)}});
  }
  nlohmann::json duplicates = nlohmann::json::array();
  for (const auto& d : s.duplicates) {
    duplicates.push_back({{"url", d.url}, {"fetches", d.fetches}, {"after_server_error", d.after_server_error}});
  }
  nlohmann::json statuses = nlohmann::json::object();
  for (const auto& [status, count] : s.status_counts) statuses[std::to_string(status)] = count;
  return {{"requests", s.requests},
          {"page_requests", s.page_requests},
          {"distinct_urls", s.distinct_urls},
          {"duplicate_fetches", s.duplicate_fetches},
          {"duplicate_fetches_after_server_error", s.duplicate_fetches_after_server_error},
          {"robots_violations", s.robots_violations},
          {"nofollow_violations", s.nofollow_violations},
          {"trap_requests", s.trap_requests},
          {"unknown_url_requests", s.unknown_url_requests},
          {"robots_txt_fetches", s.robots_txt_fetches},
          {"max_in_flight_per_host", s.max_in_flight_per_host},
          {"hosts", hosts},
          {"duplicates", duplicates},
          {"robots_violating_urls", s.violating_urls},
          {"unknown_urls", s.unknown_urls},
          {"status_counts", statuses}};
}

nlohmann::json to_json(const LoggedRequest& r, SteadyTime origin) {
  return {{"host", r.host},
          {"target", r.target},
          {"url", r.canonical_url},
          {"method", r.method},
          {"start_ms", milliseconds(r.start - origin)},
          {"end_ms", r.status == 0 ? -1.0 : milliseconds(r.end - origin)},
          {"status", r.status},
          {"in_flight", r.in_flight},
          {"robots_txt", r.robots_txt},
          {"robots_violation", r.robots_violation},
          {"nofollow_violation", r.nofollow_violation},
          {"trap", r.trap},
          {"unknown_url", r.unknown_url}};
}

}  // namespace bloomcrawl::testweb
