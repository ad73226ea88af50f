// The config schema, written once: describe() lists each section's JSON names, the member each
// one binds to, and the rule its value obeys. The JSON reader, the writer (to_json), validate_config
// and the key-path listing are visitors over it, so a field added here is read, written, validated
// and reported everywhere at once. Internal to config/.
//
// A visitor V provides:
//   template <class T, class Rule> void field(std::string_view name, T& member, Rule rule);
//   template <class Section> void section(std::string_view name, Section& member);  // calls describe
// Members are const when the visitor only reads the config.
#pragma once

#include <concepts>
#include <type_traits>

#include "config/config.h"
#include "config/field_rules.h"

namespace bloomcrawl::config_detail {

template <class S, class T>
concept SectionOf = std::same_as<std::remove_const_t<S>, T>;

constexpr IntRange kNonNegative{0};
constexpr IntRange kPositive{1};

template <class V, SectionOf<SeedsConfig> S>
void describe(V& v, S& c) {
  v.field("urls", c.urls, Text{check_seed_url});
  v.field("file", c.file, NoRule{});
}

template <class V, SectionOf<ScopeConfig> S>
void describe(V& v, S& c) {
  v.field("allowed_hosts", c.allowed_hosts, Text{check_host_name});
  v.field("allowed_domains", c.allowed_domains, Text{check_host_name});
  v.field("same_host", c.same_host, NoRule{});
  v.field("include", c.include, Text{check_regex});
  v.field("exclude", c.exclude, Text{check_regex});
  v.field("max_depth", c.max_depth, IntRange{-1});
  v.field("max_pages", c.max_pages, kNonNegative);
  v.field("max_pages_per_host", c.max_pages_per_host, kNonNegative);
  v.field("max_queued_per_host", c.max_queued_per_host, kNonNegative);
  v.field("max_url_length", c.max_url_length, IntRange{16, 1 << 20});
  v.field("follow_nofollow", c.follow_nofollow, NoRule{});
  v.field("obey_meta_robots", c.obey_meta_robots, NoRule{});
  v.field("link_kinds", c.link_kinds, OneOf{&kAllLinkKinds});
}

template <class V, SectionOf<CanonicalizationConfig> S>
void describe(V& v, S& c) {
  v.field("sort_query", c.sort_query, NoRule{});
  v.field("strip_params", c.strip_params, NoRule{});
  v.field("strip_param_names", c.strip_param_names, Text{check_param_name});
  v.field("strip_session_ids", c.strip_session_ids, NoRule{});
  v.field("lowercase_path", c.lowercase_path, NoRule{});
  v.field("drop_index_pages", c.drop_index_pages, NoRule{});
}

template <class V, SectionOf<BackoffConfig> S>
void describe(V& v, S& c) {
  v.field("on_429_503", c.on_429_503, NoRule{});
  v.field("max_retry_after_s", c.max_retry_after_s, kNonNegative);
  v.field("max_retries", c.max_retries, kNonNegative);
  v.field("error_budget", c.error_budget, kPositive);
  v.field("park_s", c.park_s, kNonNegative);
}

template <class V, SectionOf<PolitenessConfig> S>
void describe(V& v, S& c) {
  v.field("user_agent", c.user_agent, Text{check_header_value});
  v.field("robots_agent", c.robots_agent, Text{check_robots_token});
  v.field("delay_ms", c.delay_ms, kNonNegative);
  v.field("concurrency_per_host", c.concurrency_per_host, IntRange{1, 64});
  v.field("obey_robots", c.obey_robots, NoRule{});
  v.field("robots_ttl_s", c.robots_ttl_s, kPositive);
  v.field("robots_unreachable_give_up_s", c.robots_unreachable_give_up_s, kPositive);
  v.field("max_crawl_delay_s", c.max_crawl_delay_s, kNonNegative);
  v.field("use_sitemaps_as_seeds", c.use_sitemaps_as_seeds, NoRule{});
  v.section("backoff", c.backoff);
  v.field("group_by_ip", c.group_by_ip, NoRule{});
  v.field("group_by", c.group_by, OneOf{&kPolitenessGroupings});
}

template <class V, SectionOf<FetchConfig> S>
void describe(V& v, S& c) {
  v.field("threads", c.threads, IntRange{1, 256});
  v.field("transfers_per_thread", c.transfers_per_thread, IntRange{1, 10000});
  v.field("connect_timeout_ms", c.connect_timeout_ms, kPositive);
  v.field("idle_timeout_ms", c.idle_timeout_ms, kPositive);
  v.field("total_timeout_ms", c.total_timeout_ms, kPositive);
  v.field("max_body_bytes", c.max_body_bytes, IntRange{1024});
  v.field("max_decoded_bytes", c.max_decoded_bytes, IntRange{1024});
  v.field("max_header_bytes", c.max_header_bytes, IntRange{1024});
  v.field("max_redirects", c.max_redirects, IntRange{0, 100});
  v.field("transport_retries", c.transport_retries, kNonNegative);
  v.field("max_links_per_page", c.max_links_per_page, kPositive);
  v.field("max_parse_bytes", c.max_parse_bytes, IntRange{1024});
  v.field("accepted_content_types", c.accepted_content_types, Text{check_content_type});
  v.field("http2", c.http2, NoRule{});
  v.field("compression", c.compression, NoRule{});
  v.field("allowed_ranges", c.allowed_ranges, Text{check_cidr});
  v.field("ssrf_guard", c.ssrf_guard, NoRule{});
  v.field("resolve", c.resolve, Text{check_resolve_entry});
  v.field("ca_file", c.ca_file, NoRule{});
  v.field("tls_verify", c.tls_verify, NoRule{});
  v.field("dns_cache_ttl_s", c.dns_cache_ttl_s, kNonNegative);
  v.field("max_resolves_in_flight", c.max_resolves_in_flight, IntRange{1, 4096});
}

template <class V, SectionOf<SeenFilterConfig> S>
void describe(V& v, S& c) {
  v.field("initial_capacity", c.initial_capacity, IntRange{1000});
  v.field("target_fpr", c.target_fpr, RealRange{0, 0.5, true, true});
  v.field("growth_factor", c.growth_factor, RealRange{1.5, 16});
  v.field("tightening_ratio", c.tightening_ratio, RealRange{0, 1, false, true});
  // At most 2^30 MB: the limit in bytes must fit 64 bits (config/README.md).
  v.field("memory_limit_mb", c.memory_limit_mb, IntRange{0, 1 << 30});
  v.field("exact", c.exact, NoRule{});
}

template <class V, SectionOf<FrontierConfig> S>
void describe(V& v, S& c) {
  // At most 2^30 MB: the limit in bytes must fit 64 bits.
  v.field("memory_limit_mb", c.memory_limit_mb, IntRange{1, 1 << 30});
}

template <class V, SectionOf<WarcConfig> S>
void describe(V& v, S& c) {
  v.field("enabled", c.enabled, NoRule{});
  v.field("max_file_mb", c.max_file_mb, IntRange{1, 1 << 30});  // in bytes it must fit 64 bits
}

template <class V, SectionOf<OutputConfig> S>
void describe(V& v, S& c) {
  v.field("directory", c.directory, Text{check_header_value});
  v.field("pages_jsonl", c.pages_jsonl, NoRule{});
  v.field("edges", c.edges, NoRule{});
  v.field("report_json", c.report_json, NoRule{});
  v.section("warc", c.warc);
  v.field("report_interval_s", c.report_interval_s, kNonNegative);
}

template <class V, SectionOf<CheckpointConfig> S>
void describe(V& v, S& c) {
  v.field("directory", c.directory, NoRule{});
  v.field("interval_s", c.interval_s, kNonNegative);
  v.field("interval_pages", c.interval_pages, kNonNegative);
  v.field("keep", c.keep, IntRange{1, 1000});
  v.field("journal_group_ms", c.journal_group_ms, IntRange{1, 60000});
  v.field("journal_group_entries", c.journal_group_entries, IntRange{1, 1 << 24});
}

template <class V, SectionOf<LoggingConfig> S>
void describe(V& v, S& c) {
  v.field("level", c.level, OneOf{&kLogLevels});
  v.field("file", c.file, NoRule{});
  v.field("progress", c.progress, OneOf{&kProgressModes});
  v.field("max_file_mb", c.max_file_mb, IntRange{1, 1 << 20});
  v.field("max_files", c.max_files, IntRange{1, 1000});
  v.field("progress_interval_s", c.progress_interval_s, IntRange{1, 86400});
}

template <class V, SectionOf<ClusterConfig> S>
void describe(V& v, S& c) {
  v.field("redis", c.redis, Text{check_redis_address});
  v.field("name", c.name, Text{check_cluster_name});
  v.field("nodes", c.nodes, IntRange{1, 1024});
  v.field("node", c.node, IntRange{0, 1023});
  v.field("user", c.user, NoRule{});
  v.field("password_file", c.password_file, NoRule{});
  v.field("password_env", c.password_env, NoRule{});
}

template <class V, SectionOf<MetricsConfig> S>
void describe(V& v, S& c) {
  v.field("listen", c.listen, Text{check_listen_address});
  v.field("allowed_hosts", c.allowed_hosts, Text{check_host_name});
}

// Ten years: longer is no schedule.
constexpr IntRange kRecrawlInterval{1, 315360000};

template <class V, SectionOf<RecrawlConfig> S>
void describe(V& v, S& c) {
  v.field("enabled", c.enabled, NoRule{});
  v.field("default_interval_s", c.default_interval_s, kRecrawlInterval);
  v.field("min_interval_s", c.min_interval_s, kRecrawlInterval);
  v.field("max_interval_s", c.max_interval_s, kRecrawlInterval);
  v.field("adaptive", c.adaptive, NoRule{});
  v.field("continuous", c.continuous, NoRule{});
}

template <class V, SectionOf<ContentSeenConfig> S>
void describe(V& v, S& c) {
  v.field("digest", c.digest, NoRule{});
  v.field("skip_links_of_duplicates", c.skip_links_of_duplicates, NoRule{});
  v.field("min_warc_dedup_bytes", c.min_warc_dedup_bytes, kNonNegative);
  v.field("near_duplicates", c.near_duplicates, OneOf{&kNearDuplicateModes});
  v.field("learn_params", c.learn_params, NoRule{});
  v.field("learn_min_pairs", c.learn_min_pairs, IntRange{1, 1000000});
}

template <class V, SectionOf<CrawlConfig> S>
void describe(V& v, S& c) {
  v.section("seeds", c.seeds);
  v.section("scope", c.scope);
  v.section("canonicalization", c.canonicalization);
  v.section("politeness", c.politeness);
  v.section("fetch", c.fetch);
  v.section("seen_filter", c.seen_filter);
  v.section("frontier", c.frontier);
  v.section("output", c.output);
  v.section("checkpoint", c.checkpoint);
  v.field("audit", c.audit, NoRule{});
  v.section("logging", c.logging);
  v.section("cluster", c.cluster);
  v.section("metrics", c.metrics);
  v.section("recrawl", c.recrawl);
  v.section("content_seen", c.content_seen);
}

}  // namespace bloomcrawl::config_detail
