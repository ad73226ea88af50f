// Content-type gating for the fetcher: which responses have their body kept.
//
// A Content-Type header value is reduced to its media type (lowercase, parameters dropped) and
// matched against an accept list whose entries are "type/subtype", "type/*" or "*/*".
// A missing Content-Type is "application/octet-stream" (RFC 9110 §8.3), so it is kept only when
// the list accepts that type or everything.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace bloomcrawl {

// "Text/HTML; charset=utf-8" -> "text/html"; "" -> "" (no type named). Parsed once per response
// by the fetcher (FetchResult::media_type), so its users need not parse the header again.
std::string media_type_of(std::string_view content_type);

// "text/html, application/xhtml+xml" -> {"text/html", "application/xhtml+xml"} (lowercased).
std::vector<std::string> parse_media_type_list(std::string_view comma_separated);

// An unnamed media type ("") is matched as application/octet-stream.
bool media_type_accepted(std::string_view media_type, const std::vector<std::string>& accepted);

}  // namespace bloomcrawl
