// JSON values appended to a line being built, for the outputs written once per page (pages.jsonl,
// the CDXJ index): building an nlohmann::json object per line cost an allocation per field and
// showed in crawl profiles. Strings are escaped as nlohmann::json's dump() escapes them, invalid
// UTF-8 replaced, so every line parses whatever a server sent.
#pragma once

#include <charconv>
#include <concepts>
#include <string>
#include <string_view>

namespace bloomcrawl {

void append_json_string(std::string_view s, std::string* out);
// Shortest round-trip form, with ".0" on integral values so the number stays a float, and null
// for NaN and infinities, as nlohmann::json writes them.
void append_json_double(double value, std::string* out);

template <std::integral Integer>
void append_json_integer(Integer value, std::string* out) {
  char buf[24];  // any 64-bit integer with its sign
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  out->append(buf, end);
}

}  // namespace bloomcrawl
