#include "crawler/extract/robots_meta.h"

#include <algorithm>
#include <array>

#include "crawler/extract/links_text.h"

namespace bloomcrawl {
namespace {

using links_text::equals_ignore_ascii_case;
using links_text::trim_html_space;

// Directives whose syntax is "name: value". Their colon must not be read as an agent prefix.
bool is_valued_directive(std::string_view name) {
  static constexpr std::array<std::string_view, 4> kValued = {"max-snippet", "max-image-preview", "max-video-preview",
                                                              "unavailable_after"};
  return std::ranges::any_of(kValued, [&](std::string_view valued) { return equals_ignore_ascii_case(name, valued); });
}

// A user-agent product token (RFC 9309): letters, digits, '-' and '_'. Requiring this keeps the
// "15:00:00" of an unavailable_after date, split at its comma, from posing as an agent prefix.
bool is_product_token(std::string_view name) {
  return !name.empty() && std::ranges::all_of(name, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

}  // namespace

void add_robots_meta_directives(std::string_view content, RobotsDirectives& directives) {
  links_text::any_token(content, /*split_at_commas=*/true, [&](std::string_view token) {
    if (equals_ignore_ascii_case(token, "noindex")) {
      directives.noindex = true;
    } else if (equals_ignore_ascii_case(token, "nofollow")) {
      directives.nofollow = true;
    } else if (equals_ignore_ascii_case(token, "none")) {
      directives.noindex = true;
      directives.nofollow = true;
    }
    return false;
  });
}

RobotsDirectives parse_x_robots_tag(std::string_view header_value, std::string_view agent) {
  RobotsDirectives directives;
  // Until the first "agent:" prefix, directives apply to every crawler; each prefix starts a
  // group that lasts until the next prefix (that is how several header lines read once the
  // HTTP layer has joined them with ",").
  bool group_applies = true;
  size_t start = 0;
  while (start <= header_value.size()) {
    size_t comma = header_value.find(',', start);
    if (comma == std::string_view::npos) comma = header_value.size();
    std::string_view item = trim_html_space(header_value.substr(start, comma - start));
    start = comma + 1;

    size_t colon = item.find(':');
    if (colon != std::string_view::npos) {
      std::string_view name = trim_html_space(item.substr(0, colon));
      if (is_valued_directive(name)) continue;
      if (is_product_token(name)) {
        group_applies = equals_ignore_ascii_case(name, agent);
        item = item.substr(colon + 1);
      }
    }
    if (group_applies) add_robots_meta_directives(item, directives);
  }
  return directives;
}

}  // namespace bloomcrawl
