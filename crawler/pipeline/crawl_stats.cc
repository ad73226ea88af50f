#include "crawler/pipeline/crawl_stats.h"

#include <algorithm>
#include <vector>

namespace bloomcrawl {
namespace {

constexpr size_t kReportedHosts = 50;

void bump(std::mutex& mu, std::map<std::string, uint64_t>& m, const std::string& key, uint64_t n = 1) {
  std::lock_guard<std::mutex> lock(mu);
  m[key] += n;
}

// The hosts with the most duplicates first; a crawl of a million hosts keeps the report small.
nlohmann::json top_hosts(const std::vector<std::pair<std::string, uint64_t>>& top) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [host, n] : top) out[host] = n;
  return out;
}

}  // namespace

void CrawlStats::set_param_rules(nlohmann::json rules) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    param_rules_ = std::move(rules);
  }
  param_rules_changed_.store(true);
}

nlohmann::json CrawlStats::param_rules() const {
  std::lock_guard<std::mutex> lock(mu_);
  return param_rules_;
}

void CrawlStats::set_param_evidence(nlohmann::json evidence) {
  std::lock_guard<std::mutex> lock(mu_);
  param_evidence_ = std::move(evidence);
}

nlohmann::json CrawlStats::param_evidence() const {
  std::lock_guard<std::mutex> lock(mu_);
  return param_evidence_;
}

void CrawlStats::to_status(CrawlStatus& status) const {
  status.false_positives_rescued = false_positives_rescued.load();
  status.exact_duplicates = exact_duplicates.load();
  status.near_duplicates = near_duplicates.load();
  status.learned_rules = learned_rules.load();
  status.fetches_saved_by_rules = fetches_saved_by_rules.load();
  status.warc_bytes_saved = warc_bytes_saved.load();
  status.revisited = revisits.revisited.load();
  status.revisit_next_due_ms = revisits.next_due_ms.load();
  status.revisits_due_within_hour = revisits.due_within_hour.load();
}

void CrawlStats::add_duplicate(const std::string& host, const char* link_kind) {
  links_duplicate.fetch_add(1, std::memory_order_relaxed);
  duplicates_.add(host, link_kind);
}

void CrawlStats::add_failure(const char* outcome) {
  fetch_failures.fetch_add(1, std::memory_order_relaxed);
  bump(mu_, failures_by_outcome_, outcome);
}

void CrawlStats::add_refusal(const char* reason) {
  links_refused.fetch_add(1, std::memory_order_relaxed);
  bump(mu_, refusals_by_reason_, reason);
}

void CrawlStats::add_drop(const char* reason, uint64_t n) { bump(mu_, drops_by_reason_, reason, n); }

void CrawlStats::add_outcome(const std::string& outcome) { bump(mu_, outcomes_, outcome); }

void CrawlStats::add_retry(RetryCause cause) {
  (cause == RetryCause::kBackoff ? pages_retried : transport_retried).fetch_add(1, std::memory_order_relaxed);
}

nlohmann::json CrawlStats::to_json() const {
  auto v = [](const Counter& c) { return c.load(std::memory_order_relaxed); };
  const auto top = duplicates_.top(kReportedHosts);
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t pages = v(pages_fetched);
  const double mean_bytes = pages ? double(v(bytes_received)) / double(pages) : 0.0;
  const double mean_ms = pages ? double(v(fetch_ms_total)) / double(pages) : 0.0;
  const uint64_t avoided = v(links_duplicate) + v(redirects_deduplicated);
  uint64_t records = 0;
  for (const auto& [outcome, n] : outcomes_) records += n;
  return {
      {"fetches",
       {{"pages_fetched", pages},
        {"failures", v(fetch_failures)},
        {"failures_by_outcome", failures_by_outcome_},
        {"status", {{"2xx", v(status_2xx)}, {"3xx", v(status_3xx)}, {"4xx", v(status_4xx)}, {"5xx", v(status_5xx)}}},
        {"html_pages", v(html_pages)},
        {"html_parse_failures", v(html_parse_failures)},
        {"bytes_received", v(bytes_received)},
        {"robots_fetches", v(robots_fetches)},
        {"robots_disallowed", v(robots_disallowed)},
        {"robots_unavailable", v(robots_unavailable)},
        {"host_unreachable", v(host_unreachable)},
        {"requeued_at_stop", v(pages_requeued)},
        {"retried_after_backoff", v(pages_retried)},
        {"retried_after_transport_error", v(transport_retried)},
        {"sitemaps_fetched", v(sitemaps_fetched)},
        {"sitemap_urls", v(sitemap_urls)}}},
      {"revisits", revisits.to_json()},
      {"links",
       {{"discovered", v(links_discovered)},
        {"invalid", v(links_invalid)},
        {"unsupported_scheme", v(links_unsupported_scheme)},
        {"too_long", v(links_too_long)},
        {"out_of_scope", v(links_out_of_scope)},
        {"not_followed", v(links_nofollow)},
        {"too_deep", v(links_too_deep)},
        {"in_scope", v(links_in_scope)},
        {"duplicates", v(links_duplicate)},
        {"new", v(links_new)},
        {"refused_by_frontier", v(links_refused)},
        {"refused_by_reason", refusals_by_reason_},
        {"dropped_by_reason", drops_by_reason_},
        {"filter_full", v(filter_full)},
        {"false_positives_rescued", v(false_positives_rescued)}}},
      {"content_seen",
       {{"exact_duplicates", v(exact_duplicates)},
        {"near_duplicates", v(near_duplicates)},
        {"warc_bytes_saved", v(warc_bytes_saved)},
        {"fetches_saved_by_rules", v(fetches_saved_by_rules)},
        {"learned_rules", v(learned_rules)},
        {"rules", param_rules_},
        {"evidence", param_evidence_}}},
      {"outcomes", {{"records", records}, {"by_outcome", outcomes_}}},
      {"redirects",
       {{"followed", v(redirects)}, {"deduplicated", v(redirects_deduplicated)}, {"dropped", v(redirects_dropped)}}},
      {"duplicates_avoided",
       {{"total", avoided},
        {"links", v(links_duplicate)},
        {"redirects", v(redirects_deduplicated)},
        {"by_kind", duplicates_.by_kind()},
        {"top_hosts", top_hosts(top)},
        {"other_hosts", duplicates_.others(top)},
        {"estimated_bytes_saved", uint64_t(mean_bytes * double(avoided))},
        {"estimated_fetch_seconds_saved", mean_ms * double(avoided) / 1000.0}}},
  };
}

}  // namespace bloomcrawl
