// ASCII text helpers shared by the link extractor and the robots-directive parsers. HTML defines
// whitespace and case-insensitivity over ASCII only, so these never look at locale or UTF-8.
#pragma once

#include <cstddef>
#include <string_view>

namespace bloomcrawl::links_text {

// HTML "ASCII whitespace": tab, LF, FF, CR, space.
inline bool is_html_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; }

inline std::string_view trim_html_space(std::string_view text) {
  size_t begin = 0;
  while (begin < text.size() && is_html_space(text[begin])) ++begin;
  size_t end = text.size();
  while (end > begin && is_html_space(text[end - 1])) --end;
  return text.substr(begin, end - begin);
}

constexpr char to_ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; }

inline bool equals_ignore_ascii_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (to_ascii_lower(a[i]) != to_ascii_lower(b[i])) return false;
  }
  return true;
}

// Calls visit(token) for every non-empty token of `text` split at HTML whitespace and, when
// `split_at_commas`, also at commas. Stops early when visit returns true.
template <typename Visit>
bool any_token(std::string_view text, bool split_at_commas, Visit visit) {
  size_t i = 0;
  while (i < text.size()) {
    auto is_separator = [&](char c) { return is_html_space(c) || (split_at_commas && c == ','); };
    while (i < text.size() && is_separator(text[i])) ++i;
    size_t start = i;
    while (i < text.size() && !is_separator(text[i])) ++i;
    if (i > start && visit(text.substr(start, i - start))) return true;
  }
  return false;
}

}  // namespace bloomcrawl::links_text
