#include "crawler/url/encoding.h"

#include <iterator>

namespace bloomcrawl {

namespace {

struct EncodingInfo {
  Encoding encoding;
  const char* name;  // as the standard spells it
  // The ICU converter that matches the browsers' decoder best; docs/encodings.md ("ICU
  // converters") says why each was chosen and where it still differs.
  const char* icu_converter;
};

// In the order of the enum.
constexpr EncodingInfo kInfo[] = {
    {Encoding::kUtf8, "UTF-8", "UTF-8"},
    {Encoding::kIbm866, "IBM866", "ibm-866_P100-1995"},
    {Encoding::kIso8859_2, "ISO-8859-2", "ISO-8859-2"},
    {Encoding::kIso8859_3, "ISO-8859-3", "ISO-8859-3"},
    {Encoding::kIso8859_4, "ISO-8859-4", "ISO-8859-4"},
    {Encoding::kIso8859_5, "ISO-8859-5", "ISO-8859-5"},
    {Encoding::kIso8859_6, "ISO-8859-6", "ISO-8859-6"},
    {Encoding::kIso8859_7, "ISO-8859-7", "ISO-8859-7"},
    {Encoding::kIso8859_8, "ISO-8859-8", "ISO-8859-8"},
    {Encoding::kIso8859_8I, "ISO-8859-8-I", "ISO-8859-8"},  // -I only says the text is in logical order
    {Encoding::kIso8859_10, "ISO-8859-10", "ISO-8859-10"},
    {Encoding::kIso8859_13, "ISO-8859-13", "ISO-8859-13"},
    {Encoding::kIso8859_14, "ISO-8859-14", "ISO-8859-14"},
    {Encoding::kIso8859_15, "ISO-8859-15", "ISO-8859-15"},
    {Encoding::kIso8859_16, "ISO-8859-16", nullptr},  // not in Debian's ICU data
    {Encoding::kKoi8R, "KOI8-R", "KOI8-R"},
    {Encoding::kKoi8U, "KOI8-U", "KOI8-U"},
    {Encoding::kMacintosh, "macintosh", "macintosh"},
    {Encoding::kWindows874, "windows-874", "windows-874-2000"},
    {Encoding::kWindows1250, "windows-1250", "windows-1250"},
    {Encoding::kWindows1251, "windows-1251", "windows-1251"},
    {Encoding::kWindows1252, "windows-1252", "windows-1252"},
    {Encoding::kWindows1253, "windows-1253", "windows-1253"},
    {Encoding::kWindows1254, "windows-1254", "windows-1254"},
    {Encoding::kWindows1255, "windows-1255", "windows-1255"},
    {Encoding::kWindows1256, "windows-1256", "windows-1256"},
    {Encoding::kWindows1257, "windows-1257", "windows-1257"},
    {Encoding::kWindows1258, "windows-1258", "windows-1258"},
    {Encoding::kXMacCyrillic, "x-mac-cyrillic", "x-mac-cyrillic"},
    {Encoding::kGbk, "GBK", "gb18030"},  // the standard's GBK decoder is its gb18030 decoder
    {Encoding::kGb18030, "gb18030", "gb18030"},
    {Encoding::kBig5, "Big5", "Big5-HKSCS"},  // Big5 with the ETEN and Hong Kong (HKSCS) extensions
    {Encoding::kEucJp, "EUC-JP", "euc-jp-2007"},
    {Encoding::kIso2022Jp, "ISO-2022-JP", "ISO_2022,locale=ja,version=0"},
    {Encoding::kShiftJis, "Shift_JIS", "windows-31j"},  // Microsoft's code page 932, with the NEC and IBM extensions
    {Encoding::kEucKr, "EUC-KR", "windows-949-2000"},   // Microsoft's code page 949 (Unified Hangul Code)
    {Encoding::kReplacement, "replacement", nullptr},
    {Encoding::kUtf16Be, "UTF-16BE", "UTF-16BE"},
    {Encoding::kUtf16Le, "UTF-16LE", "UTF-16LE"},
    {Encoding::kXUserDefined, "x-user-defined", nullptr},
};
static_assert(std::size(kInfo) == kEncodingCount);

constexpr bool in_enum_order() {
  for (int i = 0; i < kEncodingCount; ++i) {
    if (static_cast<int>(kInfo[i].encoding) != i) return false;
  }
  return true;
}
static_assert(in_enum_order());

}  // namespace

const char* encoding_name(Encoding encoding) { return kInfo[static_cast<size_t>(encoding)].name; }

Encoding output_encoding(Encoding encoding) {
  switch (encoding) {
    case Encoding::kReplacement:
    case Encoding::kUtf16Be:
    case Encoding::kUtf16Le: return Encoding::kUtf8;
    default: return encoding;
  }
}

const char* icu_converter_name(Encoding encoding) { return kInfo[static_cast<size_t>(encoding)].icu_converter; }

char32_t iso_8859_16_code_point(unsigned char byte) {
  // Bytes 0xA0..0xFF (ISO/IEC 8859-16:2001, the Encoding Standard's index-iso-8859-16).
  static constexpr char16_t kHigh[96] = {
      0x00A0, 0x0104, 0x0105, 0x0141, 0x20AC, 0x201E, 0x0160, 0x00A7, 0x0161, 0x00A9, 0x0218, 0x00AB, 0x0179, 0x00AD,
      0x017A, 0x017B, 0x00B0, 0x00B1, 0x010C, 0x0142, 0x017D, 0x201D, 0x00B6, 0x00B7, 0x017E, 0x010D, 0x0219, 0x00BB,
      0x0152, 0x0153, 0x0178, 0x017C, 0x00C0, 0x00C1, 0x00C2, 0x0102, 0x00C4, 0x0106, 0x00C6, 0x00C7, 0x00C8, 0x00C9,
      0x00CA, 0x00CB, 0x00CC, 0x00CD, 0x00CE, 0x00CF, 0x0110, 0x0143, 0x00D2, 0x00D3, 0x00D4, 0x0150, 0x00D6, 0x015A,
      0x0170, 0x00D9, 0x00DA, 0x00DB, 0x00DC, 0x0118, 0x021A, 0x00DF, 0x00E0, 0x00E1, 0x00E2, 0x0103, 0x00E4, 0x0107,
      0x00E6, 0x00E7, 0x00E8, 0x00E9, 0x00EA, 0x00EB, 0x00EC, 0x00ED, 0x00EE, 0x00EF, 0x0111, 0x0144, 0x00F2, 0x00F3,
      0x00F4, 0x0151, 0x00F6, 0x015B, 0x0171, 0x00F9, 0x00FA, 0x00FB, 0x00FC, 0x0119, 0x021B, 0x00FF,
  };
  return byte < 0xA0 ? char32_t{byte} : char32_t{kHigh[byte - 0xA0]};
}

}  // namespace bloomcrawl
