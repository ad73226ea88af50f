// Helpers shared by the link-extraction tests.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <unicode/utf8.h>

namespace bloomcrawl::links_test {

// `unit` concatenated `times` times: the shape of every nesting and size test.
inline std::string repeat(std::string_view unit, size_t times) {
  std::string out;
  out.reserve(unit.size() * times);
  for (size_t i = 0; i < times; ++i) out += unit;
  return out;
}

// True if `text` is well-formed UTF-8 (what every decoded page must be).
inline bool is_valid_utf8(std::string_view text) {
  const char* units = text.data();  // U8_NEXT indexes a pointer
  const auto length = static_cast<int32_t>(text.size());
  for (int32_t i = 0; i < length;) {
    UChar32 c;
    U8_NEXT(units, i, length, c);
    if (c < 0) return false;
  }
  return true;
}

}  // namespace bloomcrawl::links_test
