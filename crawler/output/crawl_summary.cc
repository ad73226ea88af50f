#include "crawler/output/crawl_summary.h"

#include <cstdio>

namespace bloomcrawl {

std::string crawl_summary(const nlohmann::json& r) {
  auto u = [&](const nlohmann::json::json_pointer& p) { return r.contains(p) ? r.at(p).get<uint64_t>() : 0; };
  auto d = [&](const nlohmann::json::json_pointer& p) { return r.contains(p) ? r.at(p).get<double>() : 0.0; };
  using P = nlohmann::json::json_pointer;
  // Bits per key both ways, labelled: a young crawl's filter is sized for far more keys than it
  // holds (its first layer for seen_filter.initial_capacity), so per inserted key alone reads as waste.
  const uint64_t filter_bytes = u(P("/seen_filter/bytes"));
  const uint64_t capacity = u(P("/seen_filter/capacity"));
  const double per_capacity_key = capacity ? double(filter_bytes) * 8.0 / double(capacity) : 0.0;
  char buf[1024];
  std::snprintf(
      buf, sizeof buf,
      "crawl %s in %.1f s: %llu pages (%.1f pages/s), %llu failed, %llu disallowed by robots.txt\n"
      "links: %llu found, %llu in scope, %llu new, %llu duplicates avoided (+%llu redirects deduplicated)\n"
      "seen filter: %llu keys in %.2f MB (%.1f bits per key of its capacity of %llu, %.1f bits per inserted key), "
      "estimated FPR %.2e, ~%.3f pages wrongly skipped\n",
      r.value("/crawl/stopped_by"_json_pointer, std::string("done")).c_str(), d(P("/crawl/seconds")),
      (unsigned long long)u(P("/fetches/pages_fetched")), d(P("/crawl/pages_per_second")),
      (unsigned long long)u(P("/fetches/failures")), (unsigned long long)u(P("/fetches/robots_disallowed")),
      (unsigned long long)u(P("/links/discovered")), (unsigned long long)u(P("/links/in_scope")),
      (unsigned long long)u(P("/links/new")), (unsigned long long)u(P("/links/duplicates")),
      (unsigned long long)u(P("/redirects/deduplicated")), (unsigned long long)u(P("/seen_filter/keys")),
      double(filter_bytes) / (1 << 20), per_capacity_key, (unsigned long long)capacity,
      d(P("/seen_filter/bits_per_key")), d(P("/seen_filter/estimated_fpr")),
      d(P("/seen_filter/estimated_false_positives")));
  std::string out = buf;
  // Hosts whose robots.txt was given up: their URLs are in pages.jsonl, not fetched.
  const uint64_t unavailable = u(P("/fetches/robots_unavailable"));
  const uint64_t unreachable = u(P("/fetches/host_unreachable"));
  if (unavailable + unreachable > 0) {
    std::snprintf(buf, sizeof buf, "not fetched, robots.txt given up: %llu robots_unavailable, %llu host_unreachable\n",
                  (unsigned long long)unavailable, (unsigned long long)unreachable);
    out += buf;
  }
  if (r.contains(P("/crawl/error"))) {
    // Said last, where the operator looks: the crawl did not finish, and how to finish it.
    out += "crawl stopped by an error: " + r.at(P("/crawl/error")).get<std::string>() +
           "\nits outputs are incomplete: fix the cause (free space) and continue the crawl with --resume "
           "(with a checkpoint directory)\n";
  }
  return out;
}

}  // namespace bloomcrawl
