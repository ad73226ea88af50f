// Crawler: sitemaps (politeness.use_sitemaps_as_seeds). A sitemap URL, named by a robots.txt
// `Sitemap:` line or by a sitemap index, is fetched only when it is in scope like any link
// (config/README.md: "still subject to scope"): a robots.txt naming another host's sitemaps must
// not send the crawl to that host. At most settings.max_sitemaps are fetched per crawl, index
// files included; the rest are counted as dropped (`max_sitemaps`). With recrawl on, what a sitemap
// says of each URL (<lastmod>, <changefreq>) goes to the URL's record (docs/recrawl.md, rule 7).
#include "crawler/extract/sitemap.h"
#include "crawler/output/page_log.h"
#include "crawler/pipeline/crawl_checkpointer.h"
#include "crawler/pipeline/crawl_records.h"
#include "crawler/pipeline/crawler.h"
#include "crawler/url/canonical.h"
#include "crawler/url/url.h"

namespace bloomcrawl {
namespace {

std::vector<std::string> locs_of(const Sitemap& sitemap) {
  std::vector<std::string> out;
  out.reserve(sitemap.urls.size());
  for (const SitemapUrl& u : sitemap.urls) out.push_back(u.loc);
  return out;
}

// The sitemap at `url` marked in its record and its hints into its URLs' records (after their
// admission: a new URL's record holds its hints from the start).
void take_hints(CrawlRecords& records, const CanonicalizeOptions& options, std::string_view url, const Sitemap& sitemap,
                const Url* base) {
  std::vector<CrawlRecords::SitemapHintText> hints;
  hints.reserve(sitemap.urls.size());
  for (const SitemapUrl& u : sitemap.urls) {
    CanonicalUrl c = canonicalize(u.loc, base, options);
    if (c.ok()) hints.push_back({std::move(c.url), u.lastmod, u.changefreq});
  }
  records.sitemap_read(url, hints);
}

}  // namespace

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
  rec.links_found = uint32_t(sitemap.urls.size());
  stats_.sitemap_urls.fetch_add(sitemap.urls.size(), std::memory_order_relaxed);
  std::optional<Url> base = parse_url(rec.url);
  const Url* base_url = base ? &*base : nullptr;
  if (sitemap.is_index) {
    admit_sitemaps(locs_of(sitemap), base_url, page.lease.entry.depth, rec.url);
  } else {
    std::vector<Candidate> candidates;
    stats_.links_discovered.fetch_add(sitemap.urls.size(), std::memory_order_relaxed);
    for (const SitemapUrl& u : sitemap.urls) {
      if (std::optional<Candidate> c = candidate(u.loc, base_url, LinkKind::kAnchor))
        candidates.push_back(std::move(*c));
    }
    rec.links_new = admit(candidates, 0, rec.url, 0);
  }
  if (settings_.recrawl.enabled)
    take_hints(checkpointer_->records(), settings_.canonicalize, rec.url, sitemap, base_url);
}

}  // namespace bloomcrawl
