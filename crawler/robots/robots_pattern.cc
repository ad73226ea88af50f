#include "crawler/robots/robots_pattern.h"

namespace bloomcrawl {

std::string robots_match_path(std::string_view url) {
  constexpr std::string_view kNone = "/";
  // A leading "//" (scheme-relative URL) is skipped when looking for the scheme and the path.
  std::size_t search_start = (url.size() >= 2 && url[0] == '/' && url[1] == '/') ? 2 : 0;

  std::size_t early_path = url.find_first_of("/?;", search_start);
  std::size_t authority_start = url.find("://", search_start);
  // "a/b?c=http://x" has no scheme: "://" after the path starts is part of the path or query.
  if (early_path < authority_start) authority_start = std::string_view::npos;
  authority_start = (authority_start == std::string_view::npos) ? search_start : authority_start + 3;

  std::size_t path_start = url.find_first_of("/?;", authority_start);
  if (path_start == std::string_view::npos) return std::string(kNone);
  std::size_t fragment = url.find('#', search_start);
  if (fragment < path_start) return std::string(kNone);
  std::size_t path_end = (fragment == std::string_view::npos) ? url.size() : fragment;
  std::string path(url.substr(path_start, path_end - path_start));
  if (path.front() != '/') path.insert(path.begin(), '/');  // "h?q" -> "/?q"
  return path;
}

bool robots_pattern_matches(std::string_view path, std::string_view pattern, std::vector<std::size_t>& scratch) {
  // Patterns without wildcards are plain prefixes: the common case, answered without the
  // position set.
  if (pattern.find('*') == std::string_view::npos && (pattern.empty() || pattern.back() != '$')) {
    return path.substr(0, pattern.size()) == pattern;
  }

  // `positions[0..count)` is the sorted set of path offsets that the pattern prefix read so
  // far can end at.
  std::vector<std::size_t>& positions = scratch;
  positions.assign(path.size() + 1, 0);
  std::size_t count = 1;
  for (std::size_t p = 0; p < pattern.size(); ++p) {
    const char c = pattern[p];
    if (c == '$' && p + 1 == pattern.size()) return positions[count - 1] == path.size();
    if (c == '*') {
      // From the smallest reachable offset, every later offset is reachable.
      count = path.size() - positions[0] + 1;
      for (std::size_t i = 1; i < count; ++i) positions[i] = positions[i - 1] + 1;
      continue;
    }
    std::size_t kept = 0;
    for (std::size_t i = 0; i < count; ++i) {
      if (positions[i] < path.size() && path[positions[i]] == c) positions[kept++] = positions[i] + 1;
    }
    count = kept;
    if (count == 0) return false;
  }
  return true;
}

}  // namespace bloomcrawl
