// Robots directives carried by a page itself: the content of <meta name=robots> (or
// name=<agent>) and the X-Robots-Tag response header. Both share one directive vocabulary:
// "noindex", "nofollow", "none" (= both), case-insensitive; anything else ("all", "noarchive", "max-snippet:20", ...)
// does not restrict crawling and is ignored.
#pragma once

#include <string_view>

namespace bloomcrawl {

struct RobotsDirectives {
  bool nofollow = false;
  bool noindex = false;
};

// Parses one X-Robots-Tag header value (or several joined with ","): comma-separated
// directives, each group optionally introduced by "agent:"; directives without an agent apply
// to everyone, those after "agent:" only when agent equals `agent` (case-insensitive).
// "none" means noindex + nofollow. Unknown directives are ignored.
RobotsDirectives parse_x_robots_tag(std::string_view header_value, std::string_view agent);

// Adds the directives of a meta robots content value ("noindex, nofollow"; commas or spaces
// separate directives, as browsers and search engines accept both) to `directives`.
void add_robots_meta_directives(std::string_view content, RobotsDirectives& directives);

}  // namespace bloomcrawl
