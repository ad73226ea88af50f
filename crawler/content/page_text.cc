#include "crawler/content/page_text.h"

#include <cctype>

namespace bloomcrawl {
namespace {

bool starts_with_nocase(std::string_view text, size_t at, std::string_view prefix) {
  if (text.size() - at < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[at + i])) != prefix[i]) return false;
  }
  return true;
}

// The end of the element's raw text from `at` (past "</name"), or the end of the page.
size_t skip_raw_text(std::string_view html, size_t at, std::string_view close) {
  for (size_t i = html.find('<', at); i != std::string_view::npos; i = html.find('<', i + 1)) {
    if (starts_with_nocase(html, i, close)) return i + close.size();
  }
  return html.size();
}

std::string trimmed(std::string_view s) {
  const size_t first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return std::string(s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1));
}

}  // namespace

PageText page_text(std::string_view html) {
  PageText out;
  out.text.reserve(html.size() / 2);
  size_t title_start = std::string::npos;
  size_t i = 0;
  while (i < html.size()) {
    if (html[i] != '<') {
      out.text.push_back(html[i++]);
      continue;
    }
    if (html.compare(i, 4, "<!--") == 0) {
      const size_t end = html.find("-->", i + 4);
      i = end == std::string_view::npos ? html.size() : end + 3;
    } else if (starts_with_nocase(html, i, "<script")) {
      i = skip_raw_text(html, i + 7, "</script");
    } else if (starts_with_nocase(html, i, "<style")) {
      i = skip_raw_text(html, i + 6, "</style");
    } else {
      if (out.title.empty() && title_start == std::string::npos && starts_with_nocase(html, i, "<title")) {
        title_start = out.text.size() + 1;
      } else if (title_start != std::string::npos && starts_with_nocase(html, i, "</title")) {
        out.title = trimmed(std::string_view(out.text).substr(title_start));
        title_start = std::string::npos;
      }
      const size_t end = html.find('>', i);
      i = end == std::string_view::npos ? html.size() : end + 1;
    }
    out.text.push_back(' ');
  }
  return out;
}

}  // namespace bloomcrawl
