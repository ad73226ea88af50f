#include <algorithm>

#include "crawler/url/canonical_parts.h"
#include "crawler/url/url_percent.h"

namespace bloomcrawl::canonical_internal {
namespace {

using url_internal::hex_value;

bool is_unreserved(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }
char ascii_upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c; }

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return ascii_lower(x) == ascii_lower(y); });
}

// Decoding must not create an escape that was not there: in "%e%32" (a stray '%', 'e', then
// an escaped '2') decoding the '2' would turn the literal text into the escape "%e2".
bool completes_stray_escape(const std::string& out, unsigned char decoded) {
  if (hex_value(static_cast<char>(decoded)) < 0) return false;
  size_t n = out.size();
  return (n >= 1 && out[n - 1] == '%') || (n >= 2 && out[n - 2] == '%' && hex_value(out[n - 1]) >= 0);
}

}  // namespace

void append_normalized_escapes(std::string& out, std::string_view component, bool lowercase) {
  for (size_t i = 0; i < component.size(); ++i) {
    char c = component[i];
    if (c == '%' && i + 2 < component.size() && hex_value(component[i + 1]) >= 0 && hex_value(component[i + 2]) >= 0) {
      auto decoded = static_cast<unsigned char>(hex_value(component[i + 1]) * 16 + hex_value(component[i + 2]));
      if (is_unreserved(decoded) && !completes_stray_escape(out, decoded)) {
        out.push_back(lowercase ? ascii_lower(static_cast<char>(decoded)) : static_cast<char>(decoded));
      } else {
        out.push_back('%');
        out.push_back(ascii_upper(component[i + 1]));
        out.push_back(ascii_upper(component[i + 2]));
      }
      i += 2;
    } else {
      out.push_back(lowercase ? ascii_lower(c) : c);
    }
  }
}

bool name_matches(std::string_view name, const std::vector<std::string>& patterns) {
  return std::ranges::any_of(patterns, [name](const std::string& pattern) {
    if (!pattern.empty() && pattern.back() == '*') {
      std::string_view prefix(pattern.data(), pattern.size() - 1);
      return name.size() >= prefix.size() && iequals(name.substr(0, prefix.size()), prefix);
    }
    return iequals(name, pattern);
  });
}

const std::vector<std::string>& session_id_names() {
  static const std::vector<std::string> names = {"jsessionid", "phpsessid", "sessionid", "aspsessionid*", "sid"};
  return names;
}

void strip_path_session_ids(std::string& path) {
  size_t pos = 0;
  while ((pos = path.find(';', pos)) != std::string::npos) {
    size_t end = path.find_first_of(";/", pos + 1);
    if (end == std::string::npos) end = path.size();
    std::string_view param(path.data() + pos + 1, end - pos - 1);
    size_t eq = param.find('=');
    if (eq != std::string_view::npos && name_matches(param.substr(0, eq), session_id_names())) {
      path.erase(pos, end - pos);
    } else {
      pos = end;
    }
  }
}

void resolve_dot_segments(std::string& path) {
  if (path.find("/.") == std::string::npos) return;
  std::vector<std::string_view> kept;
  std::string_view rest = std::string_view(path).substr(1);
  while (true) {
    size_t slash = rest.find('/');
    std::string_view segment = rest.substr(0, slash);
    bool last = slash == std::string_view::npos;
    if (segment == "..") {
      if (!kept.empty()) kept.pop_back();
      if (last) kept.emplace_back("");
    } else if (segment == ".") {
      if (last) kept.emplace_back("");
    } else {
      kept.push_back(segment);
    }
    if (last) break;
    rest.remove_prefix(slash + 1);
  }
  std::string resolved;
  resolved.reserve(path.size());
  for (std::string_view segment : kept) {
    resolved.push_back('/');
    resolved += segment;
  }
  if (resolved.empty()) resolved.push_back('/');
  path = std::move(resolved);
}

void drop_index_page(std::string& path) {
  static constexpr std::string_view kIndexPages[] = {"index.html", "index.htm", "index.php", "default.asp",
                                                     "default.aspx"};
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return;
  std::string_view last(path.data() + slash + 1, path.size() - slash - 1);
  for (std::string_view page : kIndexPages) {
    if (iequals(last, page)) {
      path.resize(slash + 1);
      return;
    }
  }
}

bool rewrite_query(std::string& query, const QueryRewrite& rewrite) {
  std::vector<std::string_view> params;
  std::string_view rest(query);
  while (true) {
    size_t amp = rest.find('&');
    std::string_view param = rest.substr(0, amp);
    std::string_view name = param.substr(0, param.find('='));
    bool drop = (rewrite.strip_names && name_matches(name, *rewrite.strip_names)) ||
                (rewrite.strip_session_ids && name_matches(name, session_id_names())) ||
                (rewrite.sort && param.empty());
    if (!drop) params.push_back(param);
    if (amp == std::string_view::npos) break;
    rest.remove_prefix(amp + 1);
  }
  if (rewrite.sort) {
    std::stable_sort(params.begin(), params.end(), [](std::string_view a, std::string_view b) {
      return a.substr(0, a.find('=')) < b.substr(0, b.find('='));
    });
  }
  std::string rebuilt;
  rebuilt.reserve(query.size());
  for (size_t i = 0; i < params.size(); ++i) {
    if (i) rebuilt.push_back('&');
    rebuilt += params[i];
  }
  query = std::move(rebuilt);
  return !query.empty();
}

}  // namespace bloomcrawl::canonical_internal
