// parse_sitemap: the URLs of a sitemap (sitemaps.org protocol 0.9): a <urlset> lists pages, a
// <sitemapindex> lists further sitemaps. Both are read leniently, as crawlers must: the <loc>
// texts are taken in order, XML entities and CDATA decoded, whitespace trimmed, whatever the
// namespace prefixes and however broken the rest of the document. A gzip-compressed body
// (sitemap.xml.gz served as application/gzip) is inflated first, up to max_bytes.
// Each <loc> comes with the <lastmod> and <changefreq> texts of its own <url> (or <sitemap>)
// element, decoded and trimmed like it, empty when absent: the element is bounded by its closing
// tags, or by the neighbouring <loc>s where those are missing, so that one URL's hints are never
// another's. They are texts: what they mean is the recrawl schedule's (crawler/recrawl/).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace bloomcrawl {

struct SitemapUrl {
  std::string loc;
  std::string lastmod;     // as written (a W3C Datetime, if valid); empty: none
  std::string changefreq;  // as written ("daily", ...); empty: none
  bool operator==(const SitemapUrl&) const = default;
};

struct Sitemap {
  bool is_index = false;  // the locs are sitemaps, not pages
  std::vector<SitemapUrl> urls;
  bool truncated = false;  // max_locs or max_bytes was reached
  std::string error;       // why nothing could be read (e.g. a corrupt gzip stream)
};

// The protocol caps a sitemap at 50,000 URLs and 50 MB uncompressed.
Sitemap parse_sitemap(std::string_view body, size_t max_locs = 50000, size_t max_bytes = 50u << 20);

}  // namespace bloomcrawl
