#include "crawler/extract/page_decode.h"

#include <array>
#include <cstdint>
#include <memory>

#include <unicode/ucnv.h>
#include <unicode/ucnv_cb.h>
#include <unicode/utf8.h>

namespace bloomcrawl {
namespace {

constexpr std::string_view kReplacementUtf8 = "\xEF\xBF\xBD";

struct ConverterCloser {
  void operator()(UConverter* converter) const { ucnv_close(converter); }
};
using ConverterPtr = std::unique_ptr<UConverter, ConverterCloser>;

// Every encoding, so that a converter's callback context can point at its own.
constexpr std::array<Encoding, kEncodingCount> kEncodings = [] {
  std::array<Encoding, kEncodingCount> all{};
  for (int i = 0; i < kEncodingCount; ++i) all[static_cast<size_t>(i)] = static_cast<Encoding>(i);
  return all;
}();

// ICU's callback for a byte sequence the converter cannot map: U+FFFD, except where the
// standard's decoder maps a byte that ICU's table leaves out (the lone byte 0x80 is the euro
// sign in gb18030 and GBK, and U+0080 in Shift_JIS).
void write_replacement(const void* context, UConverterToUnicodeArgs* args, const char* code_units, int32_t length,
                       UConverterCallbackReason reason, UErrorCode* status) {
  if (reason != UCNV_UNASSIGNED && reason != UCNV_ILLEGAL && reason != UCNV_IRREGULAR) return;
  const Encoding encoding = *static_cast<const Encoding*>(context);
  UChar replacement = 0xFFFD;
  if (length == 1 && static_cast<unsigned char>(code_units[0]) == 0x80) {
    if (encoding == Encoding::kGbk || encoding == Encoding::kGb18030) replacement = 0x20AC;
    if (encoding == Encoding::kShiftJis) replacement = 0x0080;
  }
  *status = U_ZERO_ERROR;
  ucnv_cbToUWriteUChars(args, &replacement, 1, 0, status);
}

// The thread's decoder for `encoding` (null if ICU lacks it), reset for a new page.
UConverter* decoder_for(Encoding encoding) {
  thread_local std::array<ConverterPtr, kEncodingCount> decoders;
  ConverterPtr& slot = decoders[static_cast<size_t>(encoding)];
  if (!slot) {
    UErrorCode status = U_ZERO_ERROR;
    ConverterPtr converter(ucnv_open(icu_converter_name(encoding), &status));
    if (U_FAILURE(status)) return nullptr;
    ucnv_setToUCallBack(converter.get(), write_replacement, &kEncodings[static_cast<size_t>(encoding)], nullptr,
                        nullptr, &status);
    if (U_FAILURE(status)) return nullptr;
    slot = std::move(converter);
  }
  ucnv_resetToUnicode(slot.get());
  return slot.get();
}

UConverter* utf8_encoder() {
  thread_local ConverterPtr encoder = [] {
    UErrorCode status = U_ZERO_ERROR;
    ConverterPtr converter(ucnv_open("UTF-8", &status));
    return U_FAILURE(status) ? nullptr : std::move(converter);
  }();
  if (encoder) ucnv_resetFromUnicode(encoder.get());
  return encoder.get();
}

void append_utf8(std::string& out, UChar32 code_point) {
  char units[4];
  int32_t length = 0;
  U8_APPEND_UNSAFE(units, length, code_point);
  out.append(units, static_cast<size_t>(length));
}

// The Encoding Standard's x-user-defined: ASCII as is, 0x80..0xFF as U+F780..U+F7FF.
std::string decode_x_user_defined(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 3);
  for (char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    append_utf8(out, byte < 0x80 ? UChar32{byte} : UChar32{0xF780 + byte - 0x80});
  }
  return out;
}

// ISO-8859-16, which Debian's ICU data lacks: one code point per byte.
std::string decode_iso_8859_16(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) append_utf8(out, static_cast<UChar32>(iso_8859_16_code_point(static_cast<unsigned char>(c))));
  return out;
}

std::string decode_with_icu(std::string_view bytes, Encoding encoding) {
  UConverter* decoder = decoder_for(encoding);
  UConverter* encoder = utf8_encoder();
  // Without the converter no byte can be read right: the whole page is one error.
  if (decoder == nullptr || encoder == nullptr) return bytes.empty() ? std::string() : std::string(kReplacementUtf8);
  // Most pages grow by less than half (two bytes of CJK become three); the loop grows the rest.
  std::string out(bytes.size() + bytes.size() / 2 + 16, '\0');
  char* target = out.data();
  const char* source = bytes.data();
  std::array<UChar, 1024> pivot;
  UChar* pivot_source = pivot.data();
  UChar* pivot_target = pivot.data();
  bool reset = true;
  for (;;) {
    UErrorCode status = U_ZERO_ERROR;
    ucnv_convertEx(encoder, decoder, &target, out.data() + out.size(), &source, bytes.data() + bytes.size(),
                   pivot.data(), &pivot_source, &pivot_target, pivot.data() + pivot.size(), reset, /*flush=*/true,
                   &status);
    reset = false;
    if (status != U_BUFFER_OVERFLOW_ERROR) {
      out.resize(static_cast<size_t>(target - out.data()));
      if (U_FAILURE(status)) out += kReplacementUtf8;  // never seen: the callback replaces every error
      return out;
    }
    const auto written = static_cast<size_t>(target - out.data());
    out.resize(out.size() * 2);
    target = out.data() + written;
  }
}

}  // namespace

std::string decode_to_utf8(std::string_view bytes, Encoding encoding) {
  switch (encoding) {
    case Encoding::kXUserDefined: return decode_x_user_defined(bytes);
    case Encoding::kIso8859_16: return decode_iso_8859_16(bytes);
    // The replacement encoding guards against reading ISO-2022-KR/CN and HZ as ASCII: nothing of
    // such a page is read, so no link can be smuggled through it.
    case Encoding::kReplacement: return bytes.empty() ? std::string() : std::string(kReplacementUtf8);
    default: return decode_with_icu(bytes, encoding);
  }
}

}  // namespace bloomcrawl
