// URL handling for the test web, kept independent of the crawler's own canonicalizer so the two
// can check each other. Covers what the generated sites emit: http URLs only, RFC 3986 reference
// resolution (absolute, network-path, path-absolute, relative, query-only, fragment-only refs).
//
// Canonical form ("the test web's canonical URL"): scheme `http`, lowercase host, port kept when it
// is not 80, dot segments removed, escapes of unreserved characters decoded, other escapes with
// uppercase hex, empty path is "/", fragment dropped, query kept in its original order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bloomcrawl::testweb {

struct HttpUrl {
  std::string host;  // lowercase
  uint16_t port = 80;
  std::string path_query;  // canonical, starts with '/'
};

// The canonical path+query of a raw request target or reference path ("/a/./%62?x" -> "/a/b?x").
std::string canonical_path_query(std::string_view raw);

// Parses an absolute http URL into its canonical parts; nullopt for other schemes or bad syntax.
std::optional<HttpUrl> parse_http_url(std::string_view url);

// "http://host[:port]/path?query" for a canonical HttpUrl.
std::string to_string(const HttpUrl& url);

// Resolves an href (as found in HTML, entities already decoded) against an absolute base URL and
// returns the canonical result; nullopt for non-http targets (mailto:, javascript:, ...) or bad syntax.
std::optional<std::string> resolve_url(std::string_view base, std::string_view reference);

}  // namespace bloomcrawl::testweb
