// A parsed URL and the WHATWG URL Standard's basic URL parser (https://url.spec.whatwg.org/).
//
// parse_url() resolves `input` against an optional `base` exactly as browsers resolve links:
// it strips tabs/newlines and surrounding C0-control-or-space, handles every scheme (special
// ones: http, https, ws, wss, ftp, file; all others get opaque hosts/paths), dot segments,
// percent-encode sets, IPv4/IPv6 hosts and IDNA (UTS #46 via libidn2). On failure it returns
// std::nullopt and, if `error` is non-null, a short message naming what was wrong.
//
// Components are stored already serialized, as the spec's serializer would print them:
// `path` is the joined path ("/a/b", "" for an empty path list, or the opaque path as is),
// `host` is the serialized host (IPv6 in brackets), `query`/`fragment` are without '?'/'#'.
//
// `encoding` is the URL Standard's encoding override: the encoding of the document the link is
// in. Browsers encode a special URL's query (not ws/wss) in it, so `?q=é` on a windows-1252 page
// is `?q=%E9`; the path and everything else are always UTF-8 (url_query_encoding.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "crawler/url/encoding.h"

namespace bloomcrawl {

struct Url {
  std::string scheme;            // lowercase, without ':'
  std::string username;          // percent-encoded
  std::string password;          // percent-encoded
  std::string host;              // serialized host; meaningful only if has_host
  std::optional<uint16_t> port;  // null when absent or equal to the scheme's default port
  std::string path;
  std::optional<std::string> query;
  std::optional<std::string> fragment;
  bool opaque_path = false;  // e.g. "mailto:x@y": path is one opaque string, not segments
  bool has_host = false;     // null host vs empty host ("file:///x" has an empty host)

  // The WHATWG URL serializer's output.
  std::string href() const;
  // "host" or "host:port" (port only when non-default); the key for per-host politeness.
  std::string origin_host_port() const;
  // http, https, ws, wss, ftp, file.
  bool is_special() const;
};

// The scheme's default port (http 80, https 443, ws 80, wss 443, ftp 21), or -1.
int default_port(std::string_view scheme);
bool is_special_scheme(std::string_view scheme);

std::optional<Url> parse_url(std::string_view input, const Url* base = nullptr, std::string* error = nullptr,
                             Encoding encoding = Encoding::kUtf8);
// The same, writing into `out` and reusing its strings' capacity, for hot loops. Returns false
// on failure, leaving `out` unspecified. `base` may be `out` itself.
bool parse_url_into(std::string_view input, const Url* base, Url& out, std::string* error = nullptr,
                    Encoding encoding = Encoding::kUtf8);

}  // namespace bloomcrawl
