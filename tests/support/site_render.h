// Renders a SitePage model to the bytes and headers the server sends. The HTML varies the
// spelling the way real pages do (quote styles, attribute order, `&amp;` or a bare `&`, rel
// tokens in any case) without changing what a correct parser extracts.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/site_model.h"

namespace bloomcrawl::testweb {

struct SiteResponse {
  int status = 200;
  std::string content_type;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // Location, X-Robots-Tag
};

// Same page and seed -> same bytes.
SiteResponse render_page(const SitePage& page, uint64_t seed);

// The response for a canonical path+query of a site host, /robots.txt included (404 on a host
// without one). Deterministic: a live server and a static copy give the same bytes.
SiteResponse render_site_path(const Site& site, size_t host, const std::string& path_query);

}  // namespace bloomcrawl::testweb
