#include "crawler/url/url.h"

#include <charconv>

namespace bloomcrawl {

int default_port(std::string_view scheme) {
  if (scheme == "http" || scheme == "ws") return 80;
  if (scheme == "https" || scheme == "wss") return 443;
  if (scheme == "ftp") return 21;
  return -1;
}

bool is_special_scheme(std::string_view scheme) { return default_port(scheme) != -1 || scheme == "file"; }

bool Url::is_special() const { return is_special_scheme(scheme); }

namespace {

void append_port(std::string& out, uint16_t port) {
  char digits[8];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, port);
  (void)ec;  // a uint16_t always fits in 8 chars
  out.push_back(':');
  out.append(digits, end);
}

}  // namespace

std::string Url::href() const {
  std::string out;
  out.reserve(scheme.size() + username.size() + password.size() + host.size() + path.size() +
              (query ? query->size() : 0) + (fragment ? fragment->size() : 0) + 16);
  out += scheme;
  out.push_back(':');
  if (has_host) {
    out += "//";
    if (!username.empty() || !password.empty()) {
      out += username;
      if (!password.empty()) {
        out.push_back(':');
        out += password;
      }
      out.push_back('@');
    }
    out += host;
    if (port) append_port(out, *port);
  } else if (!opaque_path && path.size() > 1 && path[0] == '/' && path[1] == '/') {
    // Without "/." a path starting with an empty segment would re-parse as an authority.
    out += "/.";
  }
  out += path;
  if (query) {
    out.push_back('?');
    out += *query;
  }
  if (fragment) {
    out.push_back('#');
    out += *fragment;
  }
  return out;
}

std::string Url::origin_host_port() const {
  std::string out = host;
  if (port) append_port(out, *port);
  return out;
}

}  // namespace bloomcrawl
