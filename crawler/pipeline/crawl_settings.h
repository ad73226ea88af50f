// CrawlerSettings: everything the pipeline is told, as the option structs of the rooms it drives;
// settings_from_config: the one place where the operator's CrawlConfig (plain data) becomes them.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/cluster/cluster_link.h"
#include "crawler/extract/links.h"
#include "crawler/fetch/fetcher.h"
#include "crawler/persist/journal.h"
#include "crawler/pipeline/host_outcome.h"
#include "crawler/pipeline/scope.h"
#include "crawler/pipeline/worker_fault.h"
#include "crawler/robots/robots_cache.h"
#include "crawler/url/canonical.h"
#include "frontier/frontier.h"
#include "seenfilter/seen_filter.h"

namespace bloomcrawl {

struct CrawlCheckpointSettings {
  std::filesystem::path directory;    // empty: no checkpoints and no journal
  std::chrono::seconds interval{60};  // 0: none by time
  uint64_t interval_pages = 0;        // 0: none by page count
  uint32_t keep = 3;                  // generations kept
  JournalOptions journal;
  nlohmann::json config;  // to_json(CrawlConfig), saved in every manifest
  std::string key_hash;   // canonical_key_hash(CrawlConfig)
};

struct CrawlerSettings {
  std::vector<std::string> seeds;
  ScopeOptions scope;
  CanonicalizeOptions canonicalize;
  LinkExtractOptions links;
  std::set<LinkKind> follow_kinds{LinkKind::kAnchor, LinkKind::kArea,        LinkKind::kFrame,
                                  LinkKind::kIframe, LinkKind::kMetaRefresh, LinkKind::kCanonical};
  bool follow_nofollow = false;
  bool obey_meta_robots = true;
  uint32_t max_redirects = 5;
  FrontierOptions frontier;
  FetchOptions fetch;
  SeenFilterOptions filter;
  bool exact_seen_filter = true;   // seen_filter.exact: "seen" confirmed by the URL records (crawl_records.h)
  ContentSeenConfig content_seen;  // docs/content-seen.md
  bool obey_robots = true;
  bool sitemaps_as_seeds = false;  // robots.txt Sitemap: lines, read for seed URLs
  uint32_t max_sitemaps = 1000;    // sitemaps fetched per crawl, index files included
  RobotsCacheOptions robots;
  std::chrono::milliseconds max_crawl_delay{30000};
  std::string robots_agent = "bloomcrawl";
  unsigned parse_threads = 1;
  std::filesystem::path output_dir = "crawl-out";
  bool write_pages = true;
  bool write_edges = false;
  bool write_warc = false;  // OUTPUT/warc/*.warc.gz (docs/warc.md)
  uint64_t warc_max_file_bytes = 1000ull << 20;
  BackoffSettings backoff;                         // 429/503: host back-off and URL retries
  uint32_t transport_retries = 1;                  // re-fetches of a URL that got no response (host_outcome.h)
  bool group_by_ip = false;                        // hosts on one IP address share one politeness clock
  bool progress = false;                           // a live progress line on stderr (off a terminal: a line in the log)
  std::chrono::seconds progress_log_interval{10};  // off a terminal
  // report.json (output_dir) rewritten this often during the crawl (crawl_monitor.h); 0: only the
  // final one, which the caller writes. `config` (to_json(CrawlConfig)) goes into it as at exit.
  bool write_report = true;
  std::chrono::seconds report_interval{60};
  nlohmann::json config;
  CrawlCheckpointSettings checkpoint;
  bool audit = false;        // exact URL-hash set beside the filter, to count its real false positives
  ClusterSettings cluster;   // cluster mode (docs/cluster.md) when enabled()
  RecrawlConfig recrawl;     // revisits of known pages (docs/recrawl.md; crawler_revisit.cc)
  bool revisit_all = false;  // --revisit-all: every record with a fetch is due now
  FaultHook inject_fault;    // tests only: internal errors on the worker paths (worker_fault.h)
};

// Throws std::invalid_argument for a value that validation cannot see (an unknown link kind).
CrawlerSettings settings_from_config(const CrawlConfig& config);

// Where the crawl's frontier keeps its live store (RocksDB, scratch: made anew at every start and
// removed at the end): `frontier-live` in the checkpoint directory, whose generations hard-link
// its files, or else in the output directory. Both are locked by the crawl (dir_lock.h).
std::filesystem::path frontier_store_directory(const CrawlerSettings& settings);

}  // namespace bloomcrawl
