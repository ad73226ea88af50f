// JSON values appended to a line being built, for the outputs written once per page (pages.jsonl,
// the CDXJ index): building an nlohmann::json object per line cost an allocation per field and
// showed in crawl profiles. The text is what nlohmann::json's dump() writes for the same value:
// strings escaped with invalid UTF-8 replaced, so every line parses whatever a server sent.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace bloomcrawl {

void append_json_string(std::string_view s, std::string* out);
// Shortest round-trip form, with ".0" on integral values so the number stays a float, and null
// for NaN and infinities, as nlohmann::json writes them.
void append_json_double(double value, std::string* out);
void append_json_uint(uint64_t value, std::string* out);
void append_json_int(int64_t value, std::string* out);

}  // namespace bloomcrawl
