#include "crawler/extract/links_meta_refresh.h"

#include "crawler/extract/links_text.h"

namespace bloomcrawl {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::optional<std::string_view> meta_refresh_url(std::string_view content) {
  using links_text::is_html_space;
  using links_text::to_ascii_lower;
  size_t pos = 0;
  const size_t end = content.size();
  auto skip_space = [&] {
    while (pos < end && is_html_space(content[pos])) ++pos;
  };

  // The time: digits, then anything made of digits and dots ("1.5", "3.", ".5" is invalid).
  skip_space();
  size_t digits_start = pos;
  while (pos < end && is_digit(content[pos])) ++pos;
  if (pos == digits_start && (pos == end || content[pos] != '.')) return std::nullopt;
  while (pos < end && (is_digit(content[pos]) || content[pos] == '.')) ++pos;
  if (pos == end) return std::nullopt;  // "5": reload this page, no link

  // The separator between time and URL: ';' or ',' or whitespace, each optional around it.
  if (content[pos] != ';' && content[pos] != ',' && !is_html_space(content[pos])) {
    return std::nullopt;
  }
  skip_space();
  if (pos < end && (content[pos] == ';' || content[pos] == ',')) ++pos;
  skip_space();
  if (pos == end) return std::nullopt;

  // Optional "url =" prefix; if the text only starts like it ("urban.html"), it is the URL.
  std::string_view url = content.substr(pos);
  if (to_ascii_lower(content[pos]) == 'u') {
    size_t after = pos + 1;
    if (after < end && to_ascii_lower(content[after]) == 'r' && after + 1 < end &&
        to_ascii_lower(content[after + 1]) == 'l') {
      pos = after + 2;
      skip_space();
      if (pos < end && content[pos] == '=') {
        ++pos;
        skip_space();
        url = content.substr(pos);
      }
    }
  }
  // Leading quote: the URL ends at the matching quote, if any (browsers accept a missing one).
  if (!url.empty() && (url.front() == '\'' || url.front() == '"')) {
    char quote = url.front();
    url.remove_prefix(1);
    size_t close = url.find(quote);
    if (close != std::string_view::npos) url = url.substr(0, close);
  }
  url = links_text::trim_html_space(url);
  if (url.empty()) return std::nullopt;
  return url;
}

}  // namespace bloomcrawl
