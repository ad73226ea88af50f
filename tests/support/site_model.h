// The generated test site: a deterministic (seeded) set of pages on several hosts sharing one
// port, described as data (SitePage) before it is rendered to bytes, so the ground truth can walk
// the same link graph the server serves. Features and ground-truth rules: docs/testweb.md.
//
// Every URL the model knows is identified by (host index, canonical path+query); anything else is
// a 404. Links carry both the raw href as written in the HTML (in one of many equivalent forms:
// relative, dot segments, escapes, fragments, ...) and the canonical URL it resolves to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tests/support/site_robots.h"

namespace bloomcrawl::testweb {

struct SiteOptions {
  std::vector<std::string> hosts{"127.0.0.2", "127.0.0.3", "127.0.0.4"};
  uint16_t port = 80;
  uint32_t pages_per_host = 60;
  uint64_t seed = 1;
  bool robots = true;  // hosts 0, 1 (mod 3) serve a robots.txt; host 2 (mod 3) always 404s it
  bool trap = true;    // the infinite /trap/ spaces (need a live server)
  // Redirects, 500s, query-string pages and X-Robots-Tag need a live server; a static site
  // (served by nginx for the benchmark) leaves them out.
  bool dynamic = true;
};

struct SiteLink {
  std::string href;    // as the HTML attribute means it (entities decoded, spaces kept)
  std::string target;  // canonical absolute URL; empty for non-http hrefs (mailto:, javascript:)
  bool nofollow = false;
  bool base_relative = false;  // resolves against <base href>; false for self-contained forms
};

enum class PageType { kHtml, kRedirect, kNotFound, kServerError, kBinary };

struct SitePage {
  PageType type = PageType::kNotFound;
  int status = 404;
  std::string title;
  std::string base_href;         // <base href> value, empty when the page has none
  std::string meta_robots;       // <meta name="robots"> content, empty when none
  std::string x_robots_tag;      // X-Robots-Tag header, empty when none
  bool links_followable = true;  // false when meta robots or X-Robots-Tag say nofollow
  std::vector<SiteLink> links;   // in document order; the same target usually appears several times
  std::string location;          // raw Location header of a redirect
  std::string redirect_target;   // canonical URL the Location resolves to
  std::string content_type;
  std::string binary_body;  // for kBinary
};

class Site {
 public:
  explicit Site(SiteOptions options);

  const SiteOptions& options() const { return options_; }
  size_t host_count() const { return options_.hosts.size(); }
  // The canonical URL of a canonical path+query ("http://host:port/path", no ":80").
  std::string url(size_t host, std::string_view path_query) const;
  std::string home_url(size_t host) const { return url(host, "/"); }
  // The host index of a canonical URL inside the site's scope (its hosts on its port).
  std::optional<std::pair<size_t, std::string>> locate(std::string_view canonical_url) const;
  const SiteRobots& robots(size_t host) const { return robots_[host]; }

  // The model of the page at a canonical path+query (404 model for unknown paths).
  SitePage page(size_t host, std::string_view path_query) const;

  // Every path the site serves without a live server, for writing a static copy; needs
  // options().dynamic == false and options().trap == false.
  std::vector<std::string> static_paths() const;

  // Paths a polite crawler never fetches because every link to them is rel=nofollow or sits on a
  // nofollow page; a fetch of one is a "nofollow violation".
  static bool is_nofollow_only(std::string_view path_query);
  static bool is_trap(std::string_view path_query);

 private:
  std::string content_path(uint32_t page) const;
  std::optional<uint32_t> content_index(std::string_view path_query) const;
  SitePage home_page(size_t host) const;
  SitePage content_page(size_t host, uint32_t index) const;
  std::optional<SitePage> special_page(size_t host, std::string_view path_query) const;

  SiteOptions options_;
  std::vector<SiteRobots> robots_;
};

}  // namespace bloomcrawl::testweb
