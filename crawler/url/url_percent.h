// Percent-encoding for URLs: the WHATWG percent-encode sets (C0 control, fragment, query,
// special-query, path, userinfo) as 256-entry byte tables, and percent-encode/-decode helpers.
//
// The parser works on UTF-8 bytes, not code points: UTF-8 percent-encoding a code point is the
// same as percent-encoding each of its bytes >= 0x80, so every set below contains 0x80..0xFF.
// Encoding appends to an output string so callers can build a component without temporaries.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace bloomcrawl::url_internal {

// One bit per byte value: true means "percent-encode this byte". The sets are constexpr here
// so the per-byte lookups in the parser's loops inline.
using EncodeSet = std::array<bool, 256>;

namespace encode_sets_detail {
constexpr EncodeSet c0_control() {
  EncodeSet set{};
  for (int c = 0; c < 256; ++c) set[c] = c < 0x20 || c > 0x7E;
  return set;
}
constexpr EncodeSet with(EncodeSet set, std::string_view extra) {
  for (char c : extra) set[static_cast<unsigned char>(c)] = true;
  return set;
}
}  // namespace encode_sets_detail

inline constexpr EncodeSet kC0ControlSet = encode_sets_detail::c0_control();
inline constexpr EncodeSet kFragmentSet = encode_sets_detail::with(kC0ControlSet, " \"<>`");
inline constexpr EncodeSet kQuerySet = encode_sets_detail::with(kC0ControlSet, " \"#<>");
inline constexpr EncodeSet kSpecialQuerySet = encode_sets_detail::with(kQuerySet, "'");
inline constexpr EncodeSet kPathSet = encode_sets_detail::with(kQuerySet, "?^`{}");
inline constexpr EncodeSet kUserinfoSet = encode_sets_detail::with(kPathSet, "/:;=@[\\]^|");

inline void append_percent_byte(std::string& out, unsigned char byte) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out.push_back('%');
  out.push_back(kHex[byte >> 4]);
  out.push_back(kHex[byte & 0xF]);
}

// Appends `c` to `out`, percent-encoded if it is in `set`.
inline void append_encoded(std::string& out, unsigned char c, const EncodeSet& set) {
  if (set[c]) {
    append_percent_byte(out, c);
  } else {
    out.push_back(static_cast<char>(c));
  }
}

inline void append_encoded(std::string& out, std::string_view input, const EncodeSet& set) {
  for (char c : input) append_encoded(out, static_cast<unsigned char>(c), set);
}

// Value of an ASCII hex digit, or -1.
inline int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// WHATWG percent-decode: every "%XY" with two hex digits becomes the byte 0xXY; a '%' not
// followed by two hex digits stays as it is.
std::string percent_decode(std::string_view input);

}  // namespace bloomcrawl::url_internal
