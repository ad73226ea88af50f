#include "tests/support/site_robots.h"

namespace bloomcrawl::testweb {

SiteRobots::SiteRobots(bool has_robots_txt) : has_robots_txt_(has_robots_txt) {
  if (!has_robots_txt_) return;
  // /private/ is linked from many pages (violations are easy to make); /private/open.html checks
  // that Allow beats a shorter Disallow; `/*.cgi$` checks wildcards and the end anchor
  // (/sec1/form.cgi is disallowed, /sec1/form.cgi?step=2 is not).
  rules_ = {{true, "/private/open.html"}, {false, "/private/"}, {false, "/*.cgi$"}};
}

std::string SiteRobots::text() const {
  if (!has_robots_txt_) return {};
  // A group for another agent first: a crawler must not apply it to itself.
  std::string out =
      "# bloomcrawl test web\n"
      "User-agent: examplebot\n"
      "Disallow: /\n"
      "\n"
      "User-agent: *\n";
  for (const auto& rule : rules_) out += (rule.allow ? "Allow: " : "Disallow: ") + rule.pattern + "\n";
  return out;
}

bool SiteRobots::allowed(std::string_view path_query) const {
  size_t best_length = 0;
  bool best_allow = true;
  bool matched = false;
  for (const auto& rule : rules_) {
    if (!robots_pattern_matches(rule.pattern, path_query)) continue;
    const size_t length = rule.pattern.size();
    if (!matched || length > best_length || (length == best_length && rule.allow)) {
      best_length = length;
      best_allow = rule.allow;
      matched = true;
    }
  }
  return !matched || best_allow;
}

bool robots_pattern_matches(std::string_view pattern, std::string_view path) {
  const bool anchored = !pattern.empty() && pattern.back() == '$';
  if (anchored) pattern.remove_suffix(1);
  // Classic wildcard matching with backtracking to the last '*'.
  size_t p = 0;
  size_t s = 0;
  size_t star = std::string_view::npos;
  size_t star_s = 0;
  while (s < path.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_s = s;
    } else if (p == pattern.size() && !anchored) {
      return true;  // a prefix match is enough without '$'
    } else if (p < pattern.size() && pattern[p] == path[s]) {
      ++p;
      ++s;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      s = ++star_s;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace bloomcrawl::testweb
