// CrawlConfig: everything an operator can set for one crawl, as plain data with defaults.
//
// Contract:
// - CrawlConfig and its sections are aggregates; every field has its default in a member
//   initializer, so `CrawlConfig{}` is the default crawl and the CLI may override fields directly
//   (then call validate_config()).
// - load_config()/parse_config() read one JSON document (comments allowed), apply defaults for
//   absent fields, and validate everything; any mistake throws ConfigError naming the file and the
//   JSON path (see config/config_error.h). Unknown keys are errors, never ignored.
// - seeds.file is read by the loader, relative to the config file's directory; its URLs land in
//   seeds.file_urls. Every other path is used as written (relative to the working directory).
// - to_json() writes the full effective config; parse_config(to_json(c).dump()) == c.
// Field meanings, units and defaults: config/README.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/tracking_params.h"
#include "config/config_error.h"

namespace bloomcrawl {

struct SeedsConfig {
  std::vector<std::string> urls;
  std::string file;  // one URL per line, '#' comments; resolved against the config's directory
  // Filled by the loader from `file`; not a JSON field (to_json writes `file` instead).
  std::vector<std::string> file_urls;
  bool operator==(const SeedsConfig&) const = default;
};

// The link kinds the extractor can report; scope.link_kinds is a subset of these.
inline const std::vector<std::string> kAllLinkKinds = {"a",         "area",      "frame",      "iframe", "meta-refresh",
                                                       "canonical", "alternate", "stylesheet", "img",    "script"};

struct ScopeConfig {
  std::vector<std::string> allowed_hosts;    // exact host names (case-insensitive)
  std::vector<std::string> allowed_domains;  // a domain and all its subdomains
  bool same_host = true;                     // the seeds' hosts are in scope
  std::vector<std::string> include;          // ECMAScript regexes; if any, a URL must match one
  std::vector<std::string> exclude;          // ECMAScript regexes; a match puts a URL out of scope
  int max_depth = 5;                         // link hops from a seed; -1 = unlimited
  std::uint64_t max_pages = 0;               // 0 = unlimited
  std::uint64_t max_pages_per_host = 0;      // 0 = unlimited
  std::uint64_t max_queued_per_host = 0;     // 0 = unlimited
  int max_url_length = 2048;
  bool follow_nofollow = false;
  bool obey_meta_robots = true;
  std::vector<std::string> link_kinds = {"a", "area", "frame", "iframe", "meta-refresh", "canonical"};
  bool operator==(const ScopeConfig&) const = default;
};

struct CanonicalizationConfig {
  bool sort_query = false;
  bool strip_params = false;
  std::vector<std::string> strip_param_names = kDefaultTrackingParams;
  bool strip_session_ids = false;
  bool lowercase_path = false;
  bool drop_index_pages = false;
  bool operator==(const CanonicalizationConfig&) const = default;
};

struct BackoffConfig {
  bool on_429_503 = true;        // back off a host on 429/503, honouring Retry-After
  int max_retry_after_s = 3600;  // longer Retry-After values are capped to this
  int max_retries = 2;           // times a URL answered 429/503 is fetched again
  int error_budget = 10;         // consecutive failures before the host is parked
  int park_s = 600;              // how long a parked host rests
  bool operator==(const BackoffConfig&) const = default;
};

// What shares one politeness clock (delay, concurrency, back-off): each host name, each
// registrable domain (Public Suffix List), or each IP address the hosts resolve to.
inline const std::vector<std::string> kPolitenessGroupings = {"host", "domain", "ip"};

struct PolitenessConfig {
  std::string user_agent = "bloomcrawl/0.1 (+https://example.invalid/bloomcrawl)";
  std::string robots_agent = "bloomcrawl";  // product token matched against robots.txt groups
  int delay_ms = 1000;                      // between requests to one host
  int concurrency_per_host = 1;
  bool obey_robots = true;
  int robots_ttl_s = 86400;
  int robots_unreachable_give_up_s = 3600;  // a robots.txt failing this long gives its host up
  int max_crawl_delay_s = 30;               // larger robots.txt Crawl-delay values are capped to this
  bool use_sitemaps_as_seeds = false;
  BackoffConfig backoff;
  bool group_by_ip = false;       // deprecated alias of group_by "ip" (a config file setting only it gets "ip")
  std::string group_by = "host";  // one of kPolitenessGroupings
  bool operator==(const PolitenessConfig&) const = default;
};

struct FetchConfig {
  int threads = 2;
  int transfers_per_thread = 64;
  int connect_timeout_ms = 10000;
  int idle_timeout_ms = 30000;  // no bytes received for this long aborts a transfer
  int total_timeout_ms = 120000;
  std::uint64_t max_body_bytes = 10ull << 20;     // on the wire
  std::uint64_t max_decoded_bytes = 50ull << 20;  // after content decoding (gzip bombs)
  std::uint64_t max_header_bytes = 64ull << 10;
  int max_redirects = 5;
  int transport_retries = 1;  // times a URL whose fetch got no response at all is fetched again
  int max_links_per_page = 10000;
  std::uint64_t max_parse_bytes = 1ull << 20;  // of an HTML page, parsed for links (docs/links.md)
  std::vector<std::string> accepted_content_types = {"text/html", "application/xhtml+xml"};
  bool http2 = true;
  bool compression = true;
  std::vector<std::string> allowed_ranges;  // CIDRs exempt from the SSRF guard
  bool ssrf_guard = true;                   // refuse private, loopback and link-local addresses
  std::vector<std::string> resolve;         // "HOST:PORT:ADDRESS" resolved without DNS ("*": any host)
  std::string ca_file;                      // PEM CA bundle trusted beside the system's CAs
  bool tls_verify = true;                   // false: accept any certificate (sites you own; logged)
  int dns_cache_ttl_s = 300;                // how long a resolved address is reused, all threads
  int max_resolves_in_flight = 32;          // names being resolved at once, stuck lookups included
  bool operator==(const FetchConfig&) const = default;
};

struct SeenFilterConfig {
  std::uint64_t initial_capacity = 1'000'000;  // URLs the first layer holds at target_fpr
  double target_fpr = 1e-6;                    // bound for the whole filter; docs/fpr-default.md
  double growth_factor = 2.0;                  // each new layer holds this many times more
  double tightening_ratio = 0.8;               // each new layer's FPR = previous * ratio
  std::uint64_t memory_limit_mb = 0;           // 0 = no limit
  bool exact = true;                           // "seen" confirmed by the URL records (docs/records.md)
  bool operator==(const SeenFilterConfig&) const = default;
};

struct FrontierConfig {
  std::uint64_t memory_limit_mb = 256;  // RAM for queued URLs, the disk store's caches included
  bool operator==(const FrontierConfig&) const = default;
};

struct WarcConfig {
  bool enabled = false;
  std::uint64_t max_file_mb = 1000;
  bool operator==(const WarcConfig&) const = default;
};

struct OutputConfig {
  std::string directory = "crawl-out";
  bool pages_jsonl = true;
  bool edges = false;
  bool report_json = true;
  WarcConfig warc;
  int report_interval_s = 60;  // report.json rewritten this often during the crawl; 0 = only at exit
  bool operator==(const OutputConfig&) const = default;
};

struct CheckpointConfig {
  std::string directory;             // empty = checkpointing off
  int interval_s = 60;               // 0 = no time-based checkpoints
  std::uint64_t interval_pages = 0;  // 0 = no page-count-based checkpoints
  int keep = 3;
  int journal_group_ms = 100;        // group commit: flush the journal at least this often
  int journal_group_entries = 1024;  // ... or once this many entries are pending
  bool operator==(const CheckpointConfig&) const = default;
};

// Cluster mode (docs/cluster.md): off while `redis` is empty. Every node runs the same config but for
// `node`; the CLI's --cluster/--nodes/--node override these fields.
struct ClusterConfig {
  std::string redis;  // "redis://HOST:PORT" (config/cluster_address.h), never with credentials
  std::string name;   // the crawl's name, part of every Redis key
  int nodes = 1;
  int node = 0;  // 0 <= node < nodes
  // Redis authentication (docs/cluster.md, "Authentication"): a Redis 6 ACL user (empty: the
  // default user), and the password read from a file or an environment variable named here, so
  // it is in neither `ps` output nor report.json.
  std::string user;
  std::string password_file;
  std::string password_env;
  // A password given in --cluster's URL. Not in the schema: never written to a report or a
  // checkpoint (a resume gives it again, or uses password_file / password_env).
  std::string url_password;
  bool operator==(const ClusterConfig&) const = default;
};

inline const std::vector<std::string> kLogLevels = {"trace", "debug", "info", "warn", "error", "critical", "off"};
inline const std::vector<std::string> kProgressModes = {"auto", "always", "never"};

struct LoggingConfig {
  std::string level = "info";
  std::string file;               // empty = stderr only
  std::string progress = "auto";  // auto = when stderr is a terminal
  int max_file_mb = 100;          // `file` is rotated past this size
  int max_files = 5;              // rotated files kept beside it
  int progress_interval_s = 10;   // off a terminal: a progress line in the log this often
  bool operator==(const LoggingConfig&) const = default;
};

// The live view (docs/metrics.md): Prometheus metrics at /metrics and the status page at / and
// /status.json, on one HTTP port. Off while `listen` is empty; the CLI's --metrics overrides it.
struct MetricsConfig {
  std::string listen;  // "HOST:PORT" (config/listen_address.h)
  // Host header names answered besides the listen address (DNS rebinding, docs/metrics.md).
  std::vector<std::string> allowed_hosts;
  bool operator==(const MetricsConfig&) const = default;
};

// Revisiting known pages on an adaptive schedule (docs/recrawl.md, config/README.md "recrawl").
struct RecrawlConfig {
  bool enabled = false;
  std::int64_t default_interval_s = 604800;  // 7 days: a page's first interval
  std::int64_t min_interval_s = 3600;
  std::int64_t max_interval_s = 7776000;  // 90 days: every known URL is revisited at least this often
  bool adaptive = true;
  bool continuous = false;  // wait for the next due record instead of ending
  bool operator==(const RecrawlConfig&) const = default;
};

// Content seen (docs/content-seen.md): the same page behind other URLs found by its payload digest
// (and its text's SimHash), archived once, and the query parameters behind it learned per host.
inline const std::vector<std::string> kNearDuplicateModes = {"annotate", "off", "skip_links"};

struct ContentSeenConfig {
  bool digest = true;                        // a 200 body seen at another URL: duplicate_of
  bool skip_links_of_duplicates = true;      // a duplicate's links are not extracted (Mercator)
  std::int64_t min_warc_dedup_bytes = 1024;  // a duplicate body this long or longer: a WARC revisit
  std::string near_duplicates = "annotate";  // kNearDuplicateModes
  bool learn_params = true;                  // per host, the query parameters that do not change the page
  int learn_min_pairs = 5;                   // agreeing pairs (none disagreeing) that make a rule
  bool operator==(const ContentSeenConfig&) const = default;
};

struct CrawlConfig {
  SeedsConfig seeds;
  ScopeConfig scope;
  CanonicalizationConfig canonicalization;
  PolitenessConfig politeness;
  FetchConfig fetch;
  SeenFilterConfig seen_filter;
  FrontierConfig frontier;
  OutputConfig output;
  CheckpointConfig checkpoint;
  bool audit = false;  // server-side-checkable log of every fetch decision
  LoggingConfig logging;
  ClusterConfig cluster;
  MetricsConfig metrics;
  RecrawlConfig recrawl;
  ContentSeenConfig content_seen;
  bool operator==(const CrawlConfig&) const = default;
};

struct LoadOptions {
  // The CLI may supply seeds itself; it then calls validate_config() after adding them.
  bool require_seeds = true;
};

CrawlConfig load_config(const std::filesystem::path& file, LoadOptions options = {});
// source_name is used in messages and, as a path, to resolve a relative seeds.file.
CrawlConfig parse_config(std::string_view json_text, std::string_view source_name, LoadOptions options = {});
// Re-checks every rule on a config built or changed in code; source_name appears in messages.
void validate_config(const CrawlConfig& config, std::string_view source_name = "<config>", LoadOptions options = {});

nlohmann::json to_json(const CrawlConfig& config);

// seeds.urls followed by seeds.file_urls.
std::vector<std::string> all_seed_urls(const CrawlConfig& config);

}  // namespace bloomcrawl
