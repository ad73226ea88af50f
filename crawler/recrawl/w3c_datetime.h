// parse_w3c_datetime: a sitemap <lastmod> as Unix seconds. The sitemaps.org protocol writes it in
// the W3C Datetime profile of ISO 8601 (https://www.w3.org/TR/NOTE-datetime):
//   YYYY | YYYY-MM | YYYY-MM-DD | YYYY-MM-DDThh:mmTZD | YYYY-MM-DDThh:mm:ssTZD | ...:ss.sTZD
// with TZD "Z", "+hh:mm" or "-hh:mm". A date alone is its first second, UTC. Surrounding
// whitespace is ignored; anything else that is not exactly one of these forms (a day the month
// does not have, an hour of 24, a time without its zone) is no date: the hint is then absent,
// never guessed. Years 0001-9999.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace bloomcrawl::recrawl {

std::optional<std::int64_t> parse_w3c_datetime(std::string_view text);

}  // namespace bloomcrawl::recrawl
