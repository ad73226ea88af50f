#include "crawler/pipeline/crawl_settings.h"

#include "crawler/cluster/redis_password.h"
#include "crawler/url/domain_group.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <thread>

namespace bloomcrawl {
namespace {

LinkKind link_kind_from_name(const std::string& name) {
  static const LinkKind kinds[] = {LinkKind::kAnchor,    LinkKind::kArea,        LinkKind::kFrame,
                                   LinkKind::kIframe,    LinkKind::kMetaRefresh, LinkKind::kStylesheet,
                                   LinkKind::kAlternate, LinkKind::kCanonical,   LinkKind::kLinkOther,
                                   LinkKind::kImage,     LinkKind::kScript};
  for (LinkKind k : kinds) {
    if (name == link_kind_name(k)) return k;
  }
  throw std::invalid_argument("scope.link_kinds: unknown link kind '" + name + "'");
}

// The group the frontier puts a host in when it creates or restores it (FrontierOptions::group_of).
// "ip" has none: the address is known only once a fetch connected (Crawler::group_by_address), so
// a restore keeps the checkpoint's address groups meanwhile.
std::function<std::string(std::string_view)> politeness_group_of(bool by_ip, const std::string& group_by) {
  if (by_ip) return nullptr;
  if (group_by == "domain") {
    if (!public_suffix_list_loaded()) {
      throw std::invalid_argument("politeness.group_by \"domain\": libpsl found no Public Suffix List");
    }
    return [](std::string_view host) { return domain_group(host); };
  }
  return [](std::string_view) { return std::string(); };
}

}  // namespace

CrawlerSettings settings_from_config(const CrawlConfig& c) {
  using std::chrono::milliseconds;
  using std::chrono::seconds;
  CrawlerSettings s;
  s.seeds = all_seed_urls(c);

  s.scope.allowed_hosts = c.scope.allowed_hosts;
  s.scope.allowed_domains = c.scope.allowed_domains;
  s.scope.same_host = c.scope.same_host;
  s.scope.include = c.scope.include;
  s.scope.exclude = c.scope.exclude;

  s.canonicalize.sort_query = c.canonicalization.sort_query;
  s.canonicalize.strip_params = c.canonicalization.strip_params;
  s.canonicalize.strip_param_names = c.canonicalization.strip_param_names;
  s.canonicalize.strip_session_ids = c.canonicalization.strip_session_ids;
  s.canonicalize.lowercase_path = c.canonicalization.lowercase_path;
  s.canonicalize.drop_index_pages = c.canonicalization.drop_index_pages;
  s.canonicalize.max_length = size_t(c.scope.max_url_length);

  s.follow_kinds.clear();
  for (const std::string& k : c.scope.link_kinds) s.follow_kinds.insert(link_kind_from_name(k));
  s.links.include_images = s.follow_kinds.contains(LinkKind::kImage);
  s.links.include_scripts = s.follow_kinds.contains(LinkKind::kScript);
  s.links.max_links = size_t(c.fetch.max_links_per_page);
  s.links.max_bytes = size_t(c.fetch.max_parse_bytes);
  s.links.budget = std::make_shared<ParseBudget>(s.links.max_bytes);  // one capped page at a time
  s.links.robots_agent = c.politeness.robots_agent;
  s.robots_agent = c.politeness.robots_agent;
  s.follow_nofollow = c.scope.follow_nofollow;
  s.obey_meta_robots = c.scope.obey_meta_robots;
  s.max_redirects = uint32_t(c.fetch.max_redirects);

  s.frontier.max_depth = c.scope.max_depth < 0 ? UINT32_MAX : uint32_t(c.scope.max_depth);
  s.frontier.max_pages = c.scope.max_pages;
  s.frontier.max_pages_per_host = c.scope.max_pages_per_host;
  s.frontier.max_queued_per_host = c.scope.max_queued_per_host;
  s.frontier.default_delay = milliseconds(c.politeness.delay_ms);
  s.frontier.default_concurrency = uint32_t(c.politeness.concurrency_per_host);
  s.frontier.error_budget = uint32_t(c.politeness.backoff.error_budget);
  s.frontier.park_duration = seconds(c.politeness.backoff.park_s);
  s.frontier.memory_limit_bytes = c.frontier.memory_limit_mb << 20;

  s.fetch.threads = unsigned(c.fetch.threads);
  s.fetch.transfers_per_thread = unsigned(c.fetch.transfers_per_thread);
  // A host's requests all go through one fetch thread, so its connection cap there is the
  // host's concurrency.
  s.fetch.max_host_connections = unsigned(c.politeness.concurrency_per_host);
  s.fetch.connect_timeout = milliseconds(c.fetch.connect_timeout_ms);
  s.fetch.idle_timeout = milliseconds(c.fetch.idle_timeout_ms);
  s.fetch.total_timeout = milliseconds(c.fetch.total_timeout_ms);
  s.fetch.max_body_bytes = size_t(c.fetch.max_body_bytes);
  s.fetch.max_decoded_bytes = size_t(c.fetch.max_decoded_bytes);
  s.fetch.max_header_bytes = size_t(c.fetch.max_header_bytes);
  s.fetch.user_agent = c.politeness.user_agent;
  s.fetch.http2 = c.fetch.http2;
  s.fetch.compression = c.fetch.compression;
  s.fetch.accepted_content_types = c.fetch.accepted_content_types;
  s.fetch.ssrf_guard = c.fetch.ssrf_guard;
  s.fetch.allowed_ranges = c.fetch.allowed_ranges;
  s.fetch.resolve = c.fetch.resolve;
  s.fetch.ca_file = c.fetch.ca_file;
  s.fetch.tls_verify = c.fetch.tls_verify;
  s.fetch.dns_cache_ttl = seconds(c.fetch.dns_cache_ttl_s);
  s.fetch.max_resolves_in_flight = unsigned(c.fetch.max_resolves_in_flight);

  s.filter.initial_capacity = c.seen_filter.initial_capacity;
  s.filter.target_fpr = c.seen_filter.target_fpr;
  s.filter.growth_factor = c.seen_filter.growth_factor;
  s.filter.tightening_ratio = c.seen_filter.tightening_ratio;
  s.exact_seen_filter = c.seen_filter.exact;
  s.content_seen = c.content_seen;
  s.filter.memory_limit_bytes = c.seen_filter.memory_limit_mb ? c.seen_filter.memory_limit_mb << 20 : UINT64_MAX;

  s.obey_robots = c.politeness.obey_robots;
  s.sitemaps_as_seeds = c.politeness.use_sitemaps_as_seeds;
  s.robots.ttl = seconds(c.politeness.robots_ttl_s);
  s.robots.keep_expired = s.robots.ttl;  // an expired copy is the last good one for a re-fetch that fails
  // A failing robots.txt is retried as a failing page is: back-off from the delay (at least 1 s)
  // up to the park time; a host that does not answer at all, for its error budget.
  s.robots.retry_initial = std::max(milliseconds(c.politeness.delay_ms), milliseconds(1000));
  s.robots.retry_max = seconds(c.politeness.backoff.park_s);
  s.robots.give_up = seconds(c.politeness.robots_unreachable_give_up_s);
  s.robots.unreachable_attempts =
      c.politeness.backoff.error_budget > 0 ? uint32_t(c.politeness.backoff.error_budget) : UINT32_MAX;
  // Nothing reached a server, so there is no one to be polite to: the budget is spent in ~2 s (200
  // seeds on refusing hosts must end about as soon as with the old three tries in 3 s), yet the
  // tries do not spin.
  s.robots.unreachable_pause = std::clamp(milliseconds(c.politeness.delay_ms), milliseconds(100), milliseconds(250));
  s.max_crawl_delay = seconds(c.politeness.max_crawl_delay_s);

  // Fetch threads mostly wait on sockets while parsing is CPU-bound: one parse worker per core.
  // (With cores - fetch threads, a 2-core machine parsed on one thread and left a core idle.)
  s.parse_threads = std::max(1u, std::thread::hardware_concurrency());

  s.output_dir = c.output.directory;
  s.write_pages = c.output.pages_jsonl;
  s.write_edges = c.output.edges;
  s.write_warc = c.output.warc.enabled;
  s.warc_max_file_bytes = c.output.warc.max_file_mb << 20;
  s.write_report = c.output.report_json;
  s.report_interval = std::chrono::seconds(c.output.report_interval_s);
  s.progress_log_interval = std::chrono::seconds(c.logging.progress_interval_s);
  s.config = to_json(c);
  s.backoff.on_429_503 = c.politeness.backoff.on_429_503;
  s.backoff.max_retry_after = seconds(c.politeness.backoff.max_retry_after_s);
  s.backoff.max_retries = uint32_t(c.politeness.backoff.max_retries);
  s.transport_retries = uint32_t(c.fetch.transport_retries);
  s.group_by_ip = c.politeness.group_by == "ip" || c.politeness.group_by_ip;
  s.frontier.group_of = politeness_group_of(s.group_by_ip, c.politeness.group_by);
  s.recrawl = c.recrawl;
  if (!c.cluster.redis.empty()) {
    s.cluster = ClusterSettings{cluster_endpoint(c.cluster), c.cluster.name, uint32_t(c.cluster.nodes),
                                uint32_t(c.cluster.node)};
  }
  return s;
}

std::filesystem::path frontier_store_directory(const CrawlerSettings& settings) {
  const std::filesystem::path& dir =
      settings.checkpoint.directory.empty() ? settings.output_dir : settings.checkpoint.directory;
  return dir / "frontier-live";
}

}  // namespace bloomcrawl
