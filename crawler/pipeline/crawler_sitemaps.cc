// Crawler: sitemaps (politeness.use_sitemaps_as_seeds). A sitemap URL, named by a robots.txt
// `Sitemap:` line or by a sitemap index, is fetched only when it is in scope like any link
// (config/README.md: "still subject to scope"): a robots.txt naming another host's sitemaps must
// not send the crawl to that host. At most settings.max_sitemaps are fetched per crawl, index
// files included; the rest are counted as dropped (`max_sitemaps`).
#include "crawler/extract/sitemap.h"
#include "crawler/output/page_log.h"
#include "crawler/pipeline/crawler.h"
#include "crawler/url/canonical.h"
#include "crawler/url/url.h"

namespace bloomcrawl {

void Crawler::admit_sitemaps(const std::vector<std::string>& urls, const Url* base, uint32_t depth,
                             const std::string& parent) {
  std::vector<Candidate> candidates;
  for (const std::string& u : urls) {
    CanonicalUrl c = canonicalize(u, base, settings_.canonicalize);
    if (!c.ok()) {
      stats_.add_drop("invalid_sitemap_url");
      continue;
    }
    if (const ScopeVerdict verdict = scope_.check(c.url, c.host); verdict != ScopeVerdict::kInScope) {
      stats_.links_out_of_scope.fetch_add(1, std::memory_order_relaxed);
      stats_.add_drop(scope_verdict_name(verdict));
      continue;
    }
    if (sitemaps_admitted_.fetch_add(1) >= settings_.max_sitemaps) {
      stats_.add_drop("max_sitemaps");
      continue;
    }
    candidates.push_back({std::move(c.url), std::move(c.host), LinkKind::kAnchor, true});
  }
  admit(candidates, depth, parent, 0);
}

// A sitemap's pages are seeds (depth 0); an index's sitemaps are fetched in turn.
void Crawler::process_sitemap(const PageRequest& page, const FetchResult& result, PageRecord& rec) {
  stats_.sitemaps_fetched.fetch_add(1, std::memory_order_relaxed);
  Sitemap sitemap = parse_sitemap(result.body);
  if (!sitemap.error.empty()) rec.error = "sitemap: " + sitemap.error;
  rec.links_found = uint32_t(sitemap.locs.size());
  stats_.sitemap_urls.fetch_add(sitemap.locs.size(), std::memory_order_relaxed);
  std::optional<Url> base = parse_url(rec.url);
  if (sitemap.is_index) {
    admit_sitemaps(sitemap.locs, base ? &*base : nullptr, page.lease.entry.depth, rec.url);
    return;
  }
  std::vector<Candidate> candidates;
  stats_.links_discovered.fetch_add(sitemap.locs.size(), std::memory_order_relaxed);
  for (const std::string& loc : sitemap.locs) {
    if (std::optional<Candidate> c = candidate(loc, base ? &*base : nullptr, LinkKind::kAnchor)) {
      candidates.push_back(std::move(*c));
    }
  }
  rec.links_new = admit(candidates, 0, rec.url, 0);
}

}  // namespace bloomcrawl
