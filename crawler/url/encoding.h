// The WHATWG Encoding Standard's encodings and their labels (https://encoding.spec.whatwg.org/):
// the character encodings a browser reads web pages in, and the names pages call them by.
//
// encoding_from_label() is the standard's "get an encoding": it trims ASCII whitespace, ignores
// ASCII case, and maps every label of the standard's table (encoding_labels.cc) to its encoding,
// so "gb2312" and "x-gbk" are GBK and "latin1", "iso-8859-1" and "ascii" are windows-1252.
// Any other label is unknown (nullopt). icu_converter_name() names the ICU converter that
// matches the browsers' decoder best; docs/encodings.md says why each was chosen and where it
// still differs.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace bloomcrawl {

enum class Encoding : uint8_t {
  kUtf8,
  // Legacy single-byte encodings.
  kIbm866,
  kIso8859_2,
  kIso8859_3,
  kIso8859_4,
  kIso8859_5,
  kIso8859_6,
  kIso8859_7,
  kIso8859_8,
  kIso8859_8I,
  kIso8859_10,
  kIso8859_13,
  kIso8859_14,
  kIso8859_15,
  kIso8859_16,
  kKoi8R,
  kKoi8U,
  kMacintosh,
  kWindows874,
  kWindows1250,
  kWindows1251,
  kWindows1252,
  kWindows1253,
  kWindows1254,
  kWindows1255,
  kWindows1256,
  kWindows1257,
  kWindows1258,
  kXMacCyrillic,
  // Legacy multi-byte encodings.
  kGbk,
  kGb18030,
  kBig5,
  kEucJp,
  kIso2022Jp,
  kShiftJis,
  kEucKr,
  // The rest.
  kReplacement,  // ISO-2022-KR, HZ and ISO-2022-CN labels: decodes to one U+FFFD, never read as text
  kUtf16Be,
  kUtf16Le,
  kXUserDefined,  // bytes 0x80..0xFF are U+F780..U+F7FF
};
inline constexpr int kEncodingCount = static_cast<int>(Encoding::kXUserDefined) + 1;

// "get an encoding": nullopt for a label the Encoding Standard does not list.
std::optional<Encoding> encoding_from_label(std::string_view label);

// The encoding's name as the standard spells it ("UTF-8", "GBK", "Shift_JIS", "windows-1252").
const char* encoding_name(Encoding encoding);

// "get an output encoding": what URLs (and forms) are encoded in for a document in `encoding`.
// UTF-16BE/LE and replacement give UTF-8; every other encoding is itself.
Encoding output_encoding(Encoding encoding);

// The ICU converter to decode and encode `encoding` with; nullptr for replacement,
// x-user-defined and ISO-8859-16 (missing from Debian's ICU data), which are done without ICU.
const char* icu_converter_name(Encoding encoding);

// ISO-8859-16's table: the code point of a byte >= 0x80 (0x80..0x9F are the C1 controls).
char32_t iso_8859_16_code_point(unsigned char byte);

}  // namespace bloomcrawl
