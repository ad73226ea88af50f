// The URL in a <meta http-equiv=refresh content="..."> value, read the way browsers do
// (HTML "shared declarative refresh steps"): "5; url='x'", "0;URL=x", "3, x", "1 x", "0.5;url = "x"".
// A value with no URL ("5") refreshes the page itself and has no link to follow.
#pragma once

#include <optional>
#include <string_view>

namespace bloomcrawl {

// Returns the raw URL (quotes removed, HTML whitespace trimmed, unresolved) or nullopt when the
// content has no URL or is not a valid refresh value (e.g. it does not start with a time).
std::optional<std::string_view> meta_refresh_url(std::string_view content);

}  // namespace bloomcrawl
