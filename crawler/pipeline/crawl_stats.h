// CrawlStats: the crawl's counters, updated from many threads, and their JSON form for report.json.
// "Duplicate fetches avoided" is first-class: every link is counted once at the stage that
// dropped or admitted it, so discovered = invalid + unsupported + too_long + out_of_scope +
// nofollow + too_deep + duplicates + new + refused.
// Every URL counted in links.new ends as one record of pages.jsonl, counted here by its outcome
// ("outcomes"), or is still queued (a stop with a checkpoint): docs/outcomes.md.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "crawler/output/status_file.h"
#include "crawler/pipeline/duplicate_counts.h"
#include "crawler/pipeline/fetch_latency.h"
#include "crawler/pipeline/host_outcome.h"
#include "crawler/pipeline/recent_errors.h"
#include "crawler/pipeline/revisit_stats.h"

namespace bloomcrawl {

using Counter = std::atomic<uint64_t>;

struct CrawlStats {
  // Hosts whose duplicate links are counted, per shard of DuplicateCounts (the top 50 are reported,
  // the rest summed): exact up to this many hosts a shard, Space-Saving estimates beyond.
  static constexpr size_t kDuplicateHostCounters = 256;

  // Fetches.
  Counter pages_fetched{0};   // responses received (any status)
  Counter fetch_failures{0};  // no response: timeouts, resets, blocked addresses...
  Counter status_2xx{0}, status_3xx{0}, status_4xx{0}, status_5xx{0};
  Counter html_pages{0};           // 2xx pages parsed for links
  Counter html_parse_failures{0};  // of those, pages the HTML parser failed on (no links taken)
  Counter bytes_received{0};       // decoded body bytes
  Counter fetch_ms_total{0};
  Counter robots_fetches{0};
  Counter robots_disallowed{0};  // URLs not fetched because robots.txt disallows them
  // URLs not fetched because their robots.txt was given up (RFC 9309 2.3.1.4), by why.
  Counter robots_unavailable{0};  // it kept failing (429, 5xx, timeouts) past the give-up time
  Counter host_unreachable{0};    // the host did not resolve or refused connections
  Counter pages_requeued{0};      // in flight at a stop, put back
  Counter pages_retried{0};       // 429/503 responses whose URL was queued again (not in pages_fetched)
  Counter transport_retried{0};   // fetches with no response whose URL was queued again (not in failures)
  Counter sitemaps_fetched{0};
  Counter sitemap_urls{0};  // <loc>s read from sitemaps (each then counted as a link)

  // Links, each counted at the stage that settled it.
  Counter links_discovered{0};
  Counter links_invalid{0}, links_unsupported_scheme{0}, links_too_long{0};
  Counter links_out_of_scope{0};
  Counter links_nofollow{0};  // not followed: rel=nofollow, meta robots, X-Robots-Tag, link kind off
  Counter links_too_deep{0};
  Counter links_in_scope{0};
  Counter links_duplicate{0};  // dropped by the seen filter: duplicate fetches avoided
  Counter links_new{0};        // new to the filter
  Counter links_refused{0};    // new, but the frontier refused them (limits)
  Counter filter_full{0};      // the filter was full (memory limit, or one layer at capacity)
  // seen_filter.exact: "seen" answers the URL records did not hold, admitted after all.
  Counter false_positives_rescued{0};

  // Content seen (docs/content-seen.md): 200 bodies first fetched at another URL; pages within 3
  // SimHash bits of an earlier one; WARC payload bytes a revisit record left out; links a learned
  // parameter rule rewrote to a URL already seen (a fetch saved).
  Counter exact_duplicates{0};
  Counter near_duplicates{0};
  Counter warc_bytes_saved{0};
  Counter fetches_saved_by_rules{0};
  Counter learned_rules{0};  // rules in force (a gauge: the rules themselves are crawl state)

  // Redirects, followed by the crawler so each target goes through the seen filter.
  Counter redirects{0};
  Counter redirects_deduplicated{0};  // target already seen: a second fetch avoided
  Counter redirects_dropped{0};       // invalid, out of scope or over max_redirects

  RevisitStats revisits;  // recrawl (docs/recrawl.md)

  // For the live view only (crawler/observe, docs/metrics.md): neither in to_json() nor saved.
  FetchLatency fetch_latency;  // responses, as fetch_ms_total
  RecentErrors recent_errors;  // failures and statuses >= 400

  void add_duplicate(const std::string& host, const char* link_kind);
  void add_failure(const char* outcome);
  void add_refusal(const char* reason);
  void add_drop(const char* reason, uint64_t n = 1);
  void add_outcome(const std::string& outcome);  // a record of pages.jsonl
  void add_retry(RetryCause cause);              // an attempt whose URL was queued again

  nlohmann::json to_json() const;
  // The status file's counters from these (sample_status()).
  void to_status(CrawlStatus& status) const;
  // Adds the counts of a to_json() saved in a crawl checkpoint, so report.json counts across
  // resumes (crawl_checkpoint_stats.cc). Only the top hosts of duplicates_by_host were saved.
  void add_saved(const nlohmann::json& saved);
  // content_seen's learned parameter rules (docs/content-seen.md): an array of {host, param,
  // agreeing, disagreeing, in_force}, report.json's content_seen.rules; saved with the counters, so
  // a resume restores the rules from it.
  void set_param_rules(nlohmann::json rules);
  nlohmann::json param_rules() const;
  // Whether the rules changed since the last call: the checkpointer journals them at once.
  bool take_param_rules_changed() { return param_rules_changed_.exchange(false); }
  // The learner's evidence short of a rule, the same shape (report.json's content_seen.evidence):
  // saved with the counters too, so a resume counts on from it.
  void set_param_evidence(nlohmann::json evidence);
  nlohmann::json param_evidence() const;

 private:
  mutable std::mutex mu_;
  // Bounded: one counter per host ever seen would grow with the crawl (report.json shows 50).
  // Outside mu_: every duplicate link is counted there, from every parse worker.
  DuplicateCounts duplicates_{kDuplicateHostCounters};
  std::map<std::string, uint64_t> failures_by_outcome_;
  std::map<std::string, uint64_t> refusals_by_reason_;
  std::map<std::string, uint64_t> drops_by_reason_;
  std::map<std::string, uint64_t> outcomes_;
  nlohmann::json param_rules_ = nlohmann::json::array();
  std::atomic<bool> param_rules_changed_{false};
  nlohmann::json param_evidence_ = nlohmann::json::array();
};

}  // namespace bloomcrawl
