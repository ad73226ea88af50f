#include "crawler/url/encoding.h"

namespace bloomcrawl {

const char* encoding_name(Encoding encoding) {
  switch (encoding) {
    case Encoding::kUtf8: return "UTF-8";
    case Encoding::kIbm866: return "IBM866";
    case Encoding::kIso8859_2: return "ISO-8859-2";
    case Encoding::kIso8859_3: return "ISO-8859-3";
    case Encoding::kIso8859_4: return "ISO-8859-4";
    case Encoding::kIso8859_5: return "ISO-8859-5";
    case Encoding::kIso8859_6: return "ISO-8859-6";
    case Encoding::kIso8859_7: return "ISO-8859-7";
    case Encoding::kIso8859_8: return "ISO-8859-8";
    case Encoding::kIso8859_8I: return "ISO-8859-8-I";
    case Encoding::kIso8859_10: return "ISO-8859-10";
    case Encoding::kIso8859_13: return "ISO-8859-13";
    case Encoding::kIso8859_14: return "ISO-8859-14";
    case Encoding::kIso8859_15: return "ISO-8859-15";
    case Encoding::kIso8859_16: return "ISO-8859-16";
    case Encoding::kKoi8R: return "KOI8-R";
    case Encoding::kKoi8U: return "KOI8-U";
    case Encoding::kMacintosh: return "macintosh";
    case Encoding::kWindows874: return "windows-874";
    case Encoding::kWindows1250: return "windows-1250";
    case Encoding::kWindows1251: return "windows-1251";
    case Encoding::kWindows1252: return "windows-1252";
    case Encoding::kWindows1253: return "windows-1253";
    case Encoding::kWindows1254: return "windows-1254";
    case Encoding::kWindows1255: return "windows-1255";
    case Encoding::kWindows1256: return "windows-1256";
    case Encoding::kWindows1257: return "windows-1257";
    case Encoding::kWindows1258: return "windows-1258";
    case Encoding::kXMacCyrillic: return "x-mac-cyrillic";
    case Encoding::kGbk: return "GBK";
    case Encoding::kGb18030: return "gb18030";
    case Encoding::kBig5: return "Big5";
    case Encoding::kEucJp: return "EUC-JP";
    case Encoding::kIso2022Jp: return "ISO-2022-JP";
    case Encoding::kShiftJis: return "Shift_JIS";
    case Encoding::kEucKr: return "EUC-KR";
    case Encoding::kReplacement: return "replacement";
    case Encoding::kUtf16Be: return "UTF-16BE";
    case Encoding::kUtf16Le: return "UTF-16LE";
    case Encoding::kXUserDefined: return "x-user-defined";
  }
  return "UTF-8";
}

Encoding output_encoding(Encoding encoding) {
  switch (encoding) {
    case Encoding::kReplacement:
    case Encoding::kUtf16Be:
    case Encoding::kUtf16Le: return Encoding::kUtf8;
    default: return encoding;
  }
}

// The choices, and where each still differs from the browsers' decoders, are in
// docs/encodings.md ("ICU converters").
const char* icu_converter_name(Encoding encoding) {
  switch (encoding) {
    case Encoding::kUtf8:
    case Encoding::kReplacement:
    case Encoding::kXUserDefined:
    case Encoding::kIso8859_16: return nullptr;
    case Encoding::kIbm866: return "ibm-866_P100-1995";
    case Encoding::kIso8859_2: return "ISO-8859-2";
    case Encoding::kIso8859_3: return "ISO-8859-3";
    case Encoding::kIso8859_4: return "ISO-8859-4";
    case Encoding::kIso8859_5: return "ISO-8859-5";
    case Encoding::kIso8859_6: return "ISO-8859-6";
    case Encoding::kIso8859_7: return "ISO-8859-7";
    case Encoding::kIso8859_8:
    case Encoding::kIso8859_8I: return "ISO-8859-8";  // -I only says the text is in logical order
    case Encoding::kIso8859_10: return "ISO-8859-10";
    case Encoding::kIso8859_13: return "ISO-8859-13";
    case Encoding::kIso8859_14: return "ISO-8859-14";
    case Encoding::kIso8859_15: return "ISO-8859-15";
    case Encoding::kKoi8R: return "KOI8-R";
    case Encoding::kKoi8U: return "KOI8-U";
    case Encoding::kMacintosh: return "macintosh";
    case Encoding::kWindows874: return "windows-874-2000";
    case Encoding::kWindows1250: return "windows-1250";
    case Encoding::kWindows1251: return "windows-1251";
    case Encoding::kWindows1252: return "windows-1252";
    case Encoding::kWindows1253: return "windows-1253";
    case Encoding::kWindows1254: return "windows-1254";
    case Encoding::kWindows1255: return "windows-1255";
    case Encoding::kWindows1256: return "windows-1256";
    case Encoding::kWindows1257: return "windows-1257";
    case Encoding::kWindows1258: return "windows-1258";
    case Encoding::kXMacCyrillic: return "x-mac-cyrillic";
    // The standard's GBK decoder is its gb18030 decoder: GBK pages may hold four-byte sequences.
    case Encoding::kGbk:
    case Encoding::kGb18030: return "gb18030";
    // The standard's Big5 is Big5 with the Hong Kong (HKSCS) extensions and ETEN's.
    case Encoding::kBig5: return "Big5-HKSCS";
    case Encoding::kEucJp: return "euc-jp-2007";
    case Encoding::kIso2022Jp: return "ISO_2022,locale=ja,version=0";
    // The standard's Shift_JIS is Microsoft's code page 932 (with the NEC and IBM extensions).
    case Encoding::kShiftJis: return "windows-31j";
    // The standard's EUC-KR is Microsoft's code page 949 (Unified Hangul Code).
    case Encoding::kEucKr: return "windows-949-2000";
    case Encoding::kUtf16Be: return "UTF-16BE";
    case Encoding::kUtf16Le: return "UTF-16LE";
  }
  return nullptr;
}

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
