// CrawlStats::add_saved: the counters of a checkpointed report added back, field by field, from
// the JSON paths to_json() writes them under. A missing or mistyped field counts as 0: the
// manifest's checksum already vouches for the bytes, and an older report lacking a newer
// counter must still resume.
#include <utility>

#include "crawler/pipeline/crawl_stats.h"

namespace bloomcrawl {
namespace {

uint64_t saved_count(const nlohmann::json& saved, const char* pointer) {
  const nlohmann::json::json_pointer p(pointer);
  if (!saved.contains(p) || !saved.at(p).is_number_unsigned()) return 0;
  return saved.at(p).get<uint64_t>();
}

// Each key of the saved object at `pointer` with its count, to `add`.
template <class Add>
void for_each_saved_count(const nlohmann::json& saved, const char* pointer, Add add) {
  const nlohmann::json::json_pointer p(pointer);
  if (!saved.contains(p) || !saved.at(p).is_object()) return;
  for (const auto& [key, value] : saved.at(p).items()) {
    if (value.is_number_unsigned()) add(key, value.template get<uint64_t>());
  }
}

void add_saved_map(const nlohmann::json& saved, const char* pointer, std::map<std::string, uint64_t>& into) {
  for_each_saved_count(saved, pointer, [&](const std::string& key, uint64_t n) { into[key] += n; });
}

}  // namespace

void CrawlStats::add_saved(const nlohmann::json& saved) {
  static const std::pair<const char*, Counter CrawlStats::*> kCounters[] = {
      {"/fetches/pages_fetched", &CrawlStats::pages_fetched},
      {"/fetches/failures", &CrawlStats::fetch_failures},
      {"/fetches/status/2xx", &CrawlStats::status_2xx},
      {"/fetches/status/3xx", &CrawlStats::status_3xx},
      {"/fetches/status/4xx", &CrawlStats::status_4xx},
      {"/fetches/status/5xx", &CrawlStats::status_5xx},
      {"/fetches/html_pages", &CrawlStats::html_pages},
      {"/fetches/html_parse_failures", &CrawlStats::html_parse_failures},
      {"/fetches/bytes_received", &CrawlStats::bytes_received},
      {"/fetches/fetch_ms_total", &CrawlStats::fetch_ms_total},
      {"/fetches/robots_fetches", &CrawlStats::robots_fetches},
      {"/fetches/robots_disallowed", &CrawlStats::robots_disallowed},
      {"/fetches/robots_unavailable", &CrawlStats::robots_unavailable},
      {"/fetches/host_unreachable", &CrawlStats::host_unreachable},
      {"/fetches/requeued_at_stop", &CrawlStats::pages_requeued},
      {"/fetches/retried_after_backoff", &CrawlStats::pages_retried},
      {"/fetches/retried_after_transport_error", &CrawlStats::transport_retried},
      {"/fetches/sitemaps_fetched", &CrawlStats::sitemaps_fetched},
      {"/fetches/sitemap_urls", &CrawlStats::sitemap_urls},
      {"/links/discovered", &CrawlStats::links_discovered},
      {"/links/invalid", &CrawlStats::links_invalid},
      {"/links/unsupported_scheme", &CrawlStats::links_unsupported_scheme},
      {"/links/too_long", &CrawlStats::links_too_long},
      {"/links/out_of_scope", &CrawlStats::links_out_of_scope},
      {"/links/not_followed", &CrawlStats::links_nofollow},
      {"/links/too_deep", &CrawlStats::links_too_deep},
      {"/links/in_scope", &CrawlStats::links_in_scope},
      {"/links/duplicates", &CrawlStats::links_duplicate},
      {"/links/new", &CrawlStats::links_new},
      {"/links/refused_by_frontier", &CrawlStats::links_refused},
      {"/links/filter_full", &CrawlStats::filter_full},
      {"/links/false_positives_rescued", &CrawlStats::false_positives_rescued},
      {"/content_seen/exact_duplicates", &CrawlStats::exact_duplicates},
      {"/content_seen/near_duplicates", &CrawlStats::near_duplicates},
      {"/content_seen/warc_bytes_saved", &CrawlStats::warc_bytes_saved},
      {"/content_seen/fetches_saved_by_rules", &CrawlStats::fetches_saved_by_rules},
      {"/redirects/followed", &CrawlStats::redirects},
      {"/redirects/deduplicated", &CrawlStats::redirects_deduplicated},
      {"/redirects/dropped", &CrawlStats::redirects_dropped},
  };
  for (const auto& [pointer, counter] : kCounters) (this->*counter).fetch_add(saved_count(saved, pointer));
  std::lock_guard<std::mutex> lock(mu_);
  if (const nlohmann::json::json_pointer rules("/content_seen/rules");
      saved.contains(rules) && saved.at(rules).is_array()) {
    param_rules_ = saved.at(rules);  // the learned rules at the checkpoint (docs/content-seen.md)
  }
  if (const nlohmann::json::json_pointer evidence("/content_seen/evidence");
      saved.contains(evidence) && saved.at(evidence).is_array()) {
    param_evidence_ = saved.at(evidence);  // and the pairs short of a rule
  }
  add_saved_map(saved, "/fetches/failures_by_outcome", failures_by_outcome_);
  add_saved_map(saved, "/links/refused_by_reason", refusals_by_reason_);
  add_saved_map(saved, "/links/dropped_by_reason", drops_by_reason_);
  add_saved_map(saved, "/outcomes/by_outcome", outcomes_);
  for_each_saved_count(saved, "/duplicates_avoided/by_kind",
                       [&](const std::string& kind, uint64_t n) { duplicates_.add_kind(kind, n); });
  for_each_saved_count(saved, "/duplicates_avoided/top_hosts",
                       [&](const std::string& host, uint64_t n) { duplicates_.add_host(host, n); });
  duplicates_.add_others(saved_count(saved, "/duplicates_avoided/other_hosts"));
}

}  // namespace bloomcrawl
