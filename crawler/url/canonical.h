// canonicalize(): the seen filter's key for a URL. Two links that a standard-conforming server
// would answer with the same resource must give the same key, and two that it might answer
// differently must not (unless the user enables a lossy option below). See docs/urls.md.
//
// On top of the WHATWG-parsed URL: only http/https are kept (others are dropped with
// kUnsupportedScheme); fragment and userinfo are removed; the default port is elided; the
// empty path is "/"; percent-escapes of unreserved characters (ALPHA DIGIT - . _ ~) are
// decoded and every other escape gets uppercase hex. The result is idempotent: canonicalizing
// a canonical URL returns it unchanged, and it parses back to itself.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/tracking_params.h"
#include "crawler/url/url.h"

namespace bloomcrawl {

struct CanonicalizeOptions {
  bool sort_query = false;    // stable sort of query parameters by name; drops empty ones
  bool strip_params = false;  // remove parameters named in strip_param_names
  // Matched case-insensitively; a name ending in '*' is a prefix ("utm_*").
  std::vector<std::string> strip_param_names = kDefaultTrackingParams;
  bool strip_session_ids = false;  // ";jsessionid=..." etc. in paths (and as query params)
  bool lowercase_path = false;
  bool drop_index_pages = false;  // ".../index.html" -> ".../"
  size_t max_length = 2048;       // bytes, of the input and of the canonical URL
};

enum class UrlDropReason { kNone, kInvalid, kUnsupportedScheme, kTooLong };
// "none", "invalid", "unsupported_scheme", "too_long".
const char* url_drop_reason_name(UrlDropReason reason);

struct CanonicalUrl {
  std::string url;   // the canonical URL; empty when dropped
  std::string host;  // canonical "host[:port]" (port only if non-default), for politeness
  UrlDropReason reason = UrlDropReason::kNone;
  std::string error;  // detail when dropped
  bool ok() const { return reason == UrlDropReason::kNone; }
};

CanonicalUrl canonicalize(const Url& url, const CanonicalizeOptions& options);
// Parses `href` against `base` (may be null) first, with `encoding` as the encoding override
// (the encoding of the page the link is in, see url.h); parse failures give kInvalid.
CanonicalUrl canonicalize(std::string_view href, const Url* base, const CanonicalizeOptions& options,
                          Encoding encoding = Encoding::kUtf8);

}  // namespace bloomcrawl
