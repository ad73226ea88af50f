#include "tests/support/site_url.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace bloomcrawl::testweb {
namespace {

bool is_unreserved(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' || c == '~';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Decodes %XX of unreserved characters and uppercases the hex of the others.
std::string normalize_escapes(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex_value(s[i + 1]) >= 0 && hex_value(s[i + 2]) >= 0) {
      const char decoded = static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
      if (is_unreserved(decoded)) {
        out += decoded;
      } else {
        const auto byte = static_cast<unsigned char>(decoded);
        out += '%';
        out += kHex[byte >> 4];
        out += kHex[byte & 15];
      }
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// RFC 3986 section 5.2.4, applied to a path that starts with '/'.
std::string remove_dot_segments(std::string_view path) {
  std::vector<std::string_view> kept;
  size_t pos = 1;
  bool ends_with_slash = false;
  while (pos <= path.size()) {
    size_t next = path.find('/', pos);
    if (next == std::string_view::npos) next = path.size();
    const std::string_view segment = path.substr(pos, next - pos);
    ends_with_slash = false;
    if (segment == ".") {
      ends_with_slash = true;
    } else if (segment == "..") {
      if (!kept.empty()) kept.pop_back();
      ends_with_slash = true;
    } else {
      kept.push_back(segment);
    }
    pos = next + 1;
  }
  std::string out;
  for (const auto& segment : kept) {
    out += '/';
    out += segment;
  }
  if (ends_with_slash || out.empty()) out += '/';
  return out;
}

// The directory part of a canonical path: "/a/b.html" -> "/a/".
std::string_view directory_of(std::string_view path) { return path.substr(0, path.rfind('/') + 1); }

bool has_scheme(std::string_view ref, std::string_view* scheme) {
  const size_t colon = ref.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  if (!std::isalpha(static_cast<unsigned char>(ref[0]))) return false;
  for (size_t i = 1; i < colon; ++i) {
    const char c = ref[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return false;
  }
  *scheme = ref.substr(0, colon);
  return true;
}

// Parses "host[:port]" followed by the rest of a URL ("//" already consumed).
std::optional<HttpUrl> parse_authority_and_rest(std::string_view s) {
  const size_t end = std::min(s.find_first_of("/?#"), s.size());
  const std::string_view authority = s.substr(0, end);
  if (authority.empty() || authority.find('@') != std::string_view::npos) return std::nullopt;
  HttpUrl url;
  const size_t colon = authority.rfind(':');
  if (colon != std::string_view::npos) {
    const std::string_view digits = authority.substr(colon + 1);
    if (digits.size() > 5) return std::nullopt;
    uint32_t port = 0;
    for (char c : digits) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
      port = port * 10 + static_cast<uint32_t>(c - '0');
    }
    if (port > 65535) return std::nullopt;
    url.port = digits.empty() ? 80 : static_cast<uint16_t>(port);
    url.host = lowercase(authority.substr(0, colon));
  } else {
    url.host = lowercase(authority);
  }
  if (url.host.empty()) return std::nullopt;
  url.path_query = canonical_path_query(s.substr(end));
  return url;
}

std::string strip_fragment(std::string_view s) { return std::string(s.substr(0, std::min(s.find('#'), s.size()))); }

}  // namespace

std::string canonical_path_query(std::string_view raw) {
  const std::string without_fragment = strip_fragment(raw);
  const size_t q = without_fragment.find('?');
  std::string path = without_fragment.substr(0, q);
  if (path.empty() || path[0] != '/') path.insert(path.begin(), '/');
  std::string out = remove_dot_segments(normalize_escapes(path));
  if (q != std::string::npos) out += normalize_escapes(std::string_view(without_fragment).substr(q));
  return out;
}

std::optional<HttpUrl> parse_http_url(std::string_view url) {
  std::string_view scheme;
  if (!has_scheme(url, &scheme) || lowercase(scheme) != "http") return std::nullopt;
  std::string_view rest = url.substr(scheme.size() + 1);
  if (rest.substr(0, 2) != "//") return std::nullopt;
  return parse_authority_and_rest(rest.substr(2));
}

std::string to_string(const HttpUrl& url) {
  std::string out = "http://";
  out += url.host;
  if (url.port != 80) {
    out += ':';
    out += std::to_string(url.port);
  }
  out += url.path_query;
  return out;
}

std::optional<std::string> resolve_url(std::string_view base, std::string_view reference) {
  // HTML strips surrounding ASCII whitespace from href values; WHATWG drops tabs and newlines inside.
  std::string ref;
  for (char c : reference) {
    if (c != '\t' && c != '\n' && c != '\r') ref += c;
  }
  const size_t first = ref.find_first_not_of(" \f");
  const size_t last = ref.find_last_not_of(" \f");
  ref = first == std::string::npos ? std::string() : ref.substr(first, last - first + 1);

  std::string_view scheme;
  if (has_scheme(ref, &scheme)) {
    auto url = parse_http_url(ref);
    return url ? std::optional<std::string>(to_string(*url)) : std::nullopt;
  }
  auto base_url = parse_http_url(base);
  if (!base_url) return std::nullopt;
  if (ref.substr(0, 2) == "//") {
    auto url = parse_authority_and_rest(std::string_view(ref).substr(2));
    return url ? std::optional<std::string>(to_string(*url)) : std::nullopt;
  }
  const std::string& base_pq = base_url->path_query;
  const std::string base_path = base_pq.substr(0, base_pq.find('?'));
  if (ref.empty() || ref[0] == '#') {
    // Fragment-only: the base itself.
  } else if (ref[0] == '/') {
    base_url->path_query = canonical_path_query(ref);
  } else if (ref[0] == '?') {
    base_url->path_query = canonical_path_query(base_path + ref);
  } else {
    base_url->path_query = canonical_path_query(std::string(directory_of(base_path)) + ref);
  }
  return to_string(*base_url);
}

}  // namespace bloomcrawl::testweb
