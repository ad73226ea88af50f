// Robots directives carried by a page itself: the content of <meta name=robots> (or
// name=<agent>). The X-Robots-Tag header parser is declared in crawler/links.h; both share the
// directive vocabulary here: "noindex", "nofollow", "none" (= both), case-insensitive; anything
// else ("all", "noarchive", "max-snippet:20", ...) does not restrict crawling and is ignored.
#pragma once

#include <string_view>

#include "crawler/links.h"

namespace bloomcrawl {

// Adds the directives of a meta robots content value ("noindex, nofollow"; commas or spaces
// separate directives, as browsers and search engines accept both) to `directives`.
void add_robots_meta_directives(std::string_view content, RobotsDirectives& directives);

}  // namespace bloomcrawl
