#include "crawler/url/url_query_encoding.h"

#include <array>
#include <memory>

#include <unicode/ucnv.h>
#include <unicode/utf8.h>

namespace bloomcrawl::url_internal {
namespace {

struct ConverterCloser {
  void operator()(UConverter* converter) const { ucnv_close(converter); }
};

// One encoder per encoding and thread, opened on first use and reset for each query. Null if
// ICU lacks the converter (it does not in Debian's full ICU data; the query is then written
// as if every non-ASCII code point were unmappable, which no test should ever see).
UConverter* encoder_for(Encoding encoding) {
  thread_local std::array<std::unique_ptr<UConverter, ConverterCloser>, kEncodingCount> encoders;
  auto& slot = encoders[static_cast<size_t>(encoding)];
  if (!slot) {
    UErrorCode status = U_ZERO_ERROR;
    slot.reset(ucnv_open(icu_converter_name(encoding), &status));
    if (U_FAILURE(status)) {
      slot.reset();
      return nullptr;
    }
    ucnv_setFromUCallBack(slot.get(), UCNV_FROM_U_CALLBACK_STOP, nullptr, nullptr, nullptr, &status);
  }
  ucnv_resetFromUnicode(slot.get());
  return slot.get();
}

// Runs the ICU encoder on `code_point` (none at the end: flushes a stateful encoder's final
// shift sequence) and appends its bytes. False when the code point is unmappable.
bool icu_encode(UConverter* encoder, const UChar32* code_point, std::string& bytes) {
  UChar units[2];
  int32_t length = 0;
  if (code_point != nullptr) U16_APPEND_UNSAFE(units, length, *code_point);
  const UChar* source = units;
  char buffer[16];
  char* target = buffer;
  UErrorCode status = U_ZERO_ERROR;
  ucnv_fromUnicode(encoder, &target, buffer + sizeof buffer, &source, units + length, nullptr,
                   /*flush=*/code_point == nullptr, &status);
  if (U_FAILURE(status)) return false;
  bytes.append(buffer, static_cast<size_t>(target - buffer));
  return true;
}

// True if the last ISO-2022-JP escape sequence in `bytes` left the ASCII state (ESC ( B is
// ASCII; ESC ( J is JIS X 0201 Roman and ESC $ B JIS X 0208).
bool shifted_out_of_ascii(std::string_view bytes) {
  const size_t escape = bytes.rfind('\x1B');
  return escape != std::string_view::npos && bytes.substr(escape, 3) != "\x1B(B";
}

// The Encoding Standard's encoder for one code point, as bytes appended to `bytes`; false when
// `encoding` cannot represent it. Where ICU's tables differ from the standard's encoders,
// the standard's rules come first.
bool encode_code_point(Encoding encoding, UConverter* encoder, UChar32 code_point, std::string& bytes) {
  const auto byte = [&](int value) {
    bytes.push_back(static_cast<char>(value));
    return true;
  };
  // Every encoder but ISO-2022-JP's (which may have to shift back first) keeps ASCII as is.
  if (code_point < 0x80 && encoding != Encoding::kIso2022Jp) return byte(code_point);
  switch (encoding) {
    case Encoding::kXUserDefined:
      return code_point >= 0xF780 && code_point <= 0xF7FF ? byte(code_point - 0xF780 + 0x80) : false;
    case Encoding::kIso8859_16:
      for (int b = 0x80; b <= 0xFF; ++b) {
        if (iso_8859_16_code_point(static_cast<unsigned char>(b)) == static_cast<char32_t>(code_point)) return byte(b);
      }
      return false;
    case Encoding::kShiftJis:
      if (code_point == 0x80) return byte(0x80);
      [[fallthrough]];
    case Encoding::kEucJp:
      if (code_point == 0xA5) return byte(0x5C);
      if (code_point == 0x203E) return byte(0x7E);
      [[fallthrough]];
    case Encoding::kIso2022Jp:
      if (code_point == 0x2212) code_point = 0xFF0D;  // MINUS SIGN as FULLWIDTH HYPHEN-MINUS
      break;
    case Encoding::kGbk:
      if (code_point == 0x20AC) return byte(0x80);
      [[fallthrough]];
    case Encoding::kGb18030:
      if (code_point == 0xE5E5) return false;
      break;
    default: break;
  }
  if (encoder == nullptr) return false;
  const size_t start = bytes.size();
  if (!icu_encode(encoder, &code_point, bytes)) {
    // The standard's ISO-2022-JP encoder shifts back to ASCII before it reports the error, so
    // that the reference that replaces the code point reads as ASCII; ICU's stays shifted.
    if (encoding == Encoding::kIso2022Jp) {
      ucnv_resetFromUnicode(encoder);
      if (shifted_out_of_ascii(bytes)) bytes += "\x1B(B";
    }
    return false;
  }
  const size_t written = bytes.size() - start;
  const auto lead = static_cast<unsigned char>(written > 0 ? bytes[start] : 0);
  // GBK is gb18030 without its four-byte sequences; Big5's encoder leaves out the Hong Kong
  // extensions (lead bytes below 0xA1), which only its decoder reads.
  if ((encoding == Encoding::kGbk && written == 4) || (encoding == Encoding::kBig5 && lead < 0xA1)) {
    bytes.resize(start);
    return false;
  }
  return true;
}

void append_unmappable(std::string& out, UChar32 code_point) {
  out += "%26%23";
  out += std::to_string(code_point);
  out += "%3B";
}

}  // namespace

void append_query_in_encoding(std::string& out, std::string_view utf8, Encoding encoding, const EncodeSet& set) {
  bool ascii = true;
  for (char c : utf8) ascii &= static_cast<unsigned char>(c) < 0x80;
  // ASCII is ASCII in every output encoding (ISO-2022-JP starts in its ASCII state).
  if (ascii || encoding == Encoding::kUtf8) {
    append_encoded(out, utf8, set);
    return;
  }
  UConverter* encoder = icu_converter_name(encoding) == nullptr ? nullptr : encoder_for(encoding);
  std::string bytes;
  const auto flush_bytes = [&] {
    append_encoded(out, bytes, set);
    bytes.clear();
  };
  const char* units = utf8.data();  // U8_NEXT indexes a pointer
  const auto length = static_cast<int32_t>(utf8.size());
  for (int32_t i = 0; i < length;) {
    UChar32 code_point;
    U8_NEXT(units, i, length, code_point);
    if (code_point < 0) code_point = 0xFFFD;
    if (!encode_code_point(encoding, encoder, code_point, bytes)) {
      flush_bytes();
      append_unmappable(out, code_point);
    }
  }
  if (encoder != nullptr) icu_encode(encoder, nullptr, bytes);
  flush_bytes();
}

}  // namespace bloomcrawl::url_internal
