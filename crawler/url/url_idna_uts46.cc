#include "crawler/url/url_idna_uts46.h"

#include <unicode/uidna.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <climits>

namespace bloomcrawl::url_internal {
namespace {

constexpr uint32_t kWhatwgFlags =
    UIDNA_CHECK_BIDI | UIDNA_CHECK_CONTEXTJ | UIDNA_NONTRANSITIONAL_TO_ASCII | UIDNA_NONTRANSITIONAL_TO_UNICODE;

// ICU's UTS46 object is immutable once opened and documented as safe to share between threads.
const UIDNA* uts46() {
  static const UIDNA* const idna = [] {
    UErrorCode status = U_ZERO_ERROR;
    UIDNA* opened = uidna_openUTS46(kWhatwgFlags, &status);
    return U_SUCCESS(status) ? opened : nullptr;
  }();
  return idna;
}

// ICU reports these, but the URL standard runs UTS #46 with CheckHyphens=false and
// VerifyDnsLength=false, where they are not errors.
constexpr uint32_t kNotErrorsForUrls = UIDNA_ERROR_EMPTY_LABEL | UIDNA_ERROR_LABEL_TOO_LONG |
                                       UIDNA_ERROR_DOMAIN_NAME_TOO_LONG | UIDNA_ERROR_LEADING_HYPHEN |
                                       UIDNA_ERROR_TRAILING_HYPHEN | UIDNA_ERROR_HYPHEN_3_4;

std::string describe(uint32_t errors) {
  static constexpr struct {
    uint32_t bit;
    const char* what;
  } kNames[] = {
      {UIDNA_ERROR_LEADING_COMBINING_MARK, "label starts with a combining mark"},
      {UIDNA_ERROR_DISALLOWED, "disallowed character"},
      {UIDNA_ERROR_PUNYCODE, "invalid Punycode"},
      {UIDNA_ERROR_LABEL_HAS_DOT, "label has a dot"},
      {UIDNA_ERROR_INVALID_ACE_LABEL, "invalid A-label (xn--)"},
      {UIDNA_ERROR_BIDI, "violates the bidi rule"},
      {UIDNA_ERROR_CONTEXTJ, "misplaced zero-width joiner or non-joiner"},
  };
  std::string text;
  for (const auto& name : kNames) {
    if (errors & name.bit) text += (text.empty() ? "" : ", ") + std::string(name.what);
  }
  return text.empty() ? "rejected by UTS #46" : text;
}

}  // namespace

bool uts46_to_ascii(std::string_view domain, std::string& out, std::string* error) {
  const UIDNA* idna = uts46();
  if (idna == nullptr || domain.size() > INT_MAX / 8) {  // the capacity below stays an int32_t
    if (error) *error = idna == nullptr ? "IDNA unavailable (ICU could not open UTS #46)" : "host too long for IDNA";
    return false;
  }
  const size_t before = out.size();
  // Punycode of a label is at most a few times its UTF-8 length; one retry covers the rest.
  for (int32_t capacity = static_cast<int32_t>(domain.size()) * 4 + 16;;) {
    out.resize(before + static_cast<size_t>(capacity));
    UIDNAInfo info = UIDNA_INFO_INITIALIZER;
    UErrorCode status = U_ZERO_ERROR;
    const int32_t length = uidna_nameToASCII_UTF8(idna, domain.data(), static_cast<int32_t>(domain.size()),
                                                  out.data() + before, capacity, &info, &status);
    if (status == U_BUFFER_OVERFLOW_ERROR && length > capacity) {
      capacity = length;
      continue;
    }
    const uint32_t errors = info.errors & ~kNotErrorsForUrls;
    if (U_FAILURE(status) || errors != 0) {
      out.resize(before);
      if (error)
        *error = "IDNA error in host: " + (U_FAILURE(status) ? std::string(u_errorName(status)) : describe(errors));
      return false;
    }
    out.resize(before + static_cast<size_t>(length));
    return true;
  }
}

namespace {

// Code point -> replacement, 0 = ignored (deleted). Sorted by code point.
constexpr std::pair<char32_t, char32_t> kMappingChangesAfter15_0[] = {
    {0x04C0, 0x04CF},  {0x10A0, 0x2D00},  {0x10A1, 0x2D01},   {0x10A2, 0x2D02},  {0x10A3, 0x2D03},  {0x10A4, 0x2D04},
    {0x10A5, 0x2D05},  {0x10A6, 0x2D06},  {0x10A7, 0x2D07},   {0x10A8, 0x2D08},  {0x10A9, 0x2D09},  {0x10AA, 0x2D0A},
    {0x10AB, 0x2D0B},  {0x10AC, 0x2D0C},  {0x10AD, 0x2D0D},   {0x10AE, 0x2D0E},  {0x10AF, 0x2D0F},  {0x10B0, 0x2D10},
    {0x10B1, 0x2D11},  {0x10B2, 0x2D12},  {0x10B3, 0x2D13},   {0x10B4, 0x2D14},  {0x10B5, 0x2D15},  {0x10B6, 0x2D16},
    {0x10B7, 0x2D17},  {0x10B8, 0x2D18},  {0x10B9, 0x2D19},   {0x10BA, 0x2D1A},  {0x10BB, 0x2D1B},  {0x10BC, 0x2D1C},
    {0x10BD, 0x2D1D},  {0x10BE, 0x2D1E},  {0x10BF, 0x2D1F},   {0x10C0, 0x2D20},  {0x10C1, 0x2D21},  {0x10C2, 0x2D22},
    {0x10C3, 0x2D23},  {0x10C4, 0x2D24},  {0x10C5, 0x2D25},   {0x115F, 0},       {0x1160, 0},       {0x17B4, 0},
    {0x17B5, 0},       {0x180E, 0},       {0x1E9E, 0x00DF},   {0x2061, 0},       {0x2062, 0},       {0x2063, 0},
    {0x206A, 0},       {0x206B, 0},       {0x206C, 0},        {0x206D, 0},       {0x206E, 0},       {0x206F, 0},
    {0x2132, 0x214E},  {0x2183, 0x2184},  {0x3164, 0},        {0xFFA0, 0},       {0x1D173, 0},      {0x1D174, 0},
    {0x1D175, 0},      {0x1D176, 0},      {0x1D177, 0},       {0x1D178, 0},      {0x1D179, 0},      {0x1D17A, 0},
    {0x2F868, 0x36FC}, {0x2F874, 0x5F53}, {0x2F91F, 0x243AB}, {0x2F95F, 0x7AEE}, {0x2F9BF, 0x45D7},
};

}  // namespace

void map_post_unicode_15_0(std::string& label) {
  if (is_ascii(label) || label.size() > INT_MAX / 8) return;  // too long a host fails in IDNA anyway
  std::string mapped;
  mapped.reserve(label.size());
  const auto* bytes = reinterpret_cast<const uint8_t*>(label.data());
  const auto length = static_cast<int32_t>(label.size());
  for (int32_t at = 0; at < length;) {
    const int32_t start = at;
    UChar32 cp;
    U8_NEXT(bytes, at, length, cp);  // cp < 0: invalid bytes, copied for IDNA to reject
    const auto* end = std::end(kMappingChangesAfter15_0);
    const auto* change = cp < 0 ? end
                                : std::lower_bound(std::begin(kMappingChangesAfter15_0), end,
                                                   std::pair{static_cast<char32_t>(cp), char32_t{0}});
    if (change == end || change->first != static_cast<char32_t>(cp)) {
      mapped.append(label, static_cast<size_t>(start), static_cast<size_t>(at - start));
    } else if (change->second != 0) {
      char utf8[U8_MAX_LENGTH];
      int32_t written = 0;
      U8_APPEND_UNSAFE(utf8, written, change->second);
      mapped.append(utf8, static_cast<size_t>(written));
    }
  }
  label = std::move(mapped);
}

bool decodes_to_alabel_prefix(std::string_view alabel) {
  const UIDNA* idna = uts46();
  if (idna == nullptr || !has_alabel_prefix(alabel) || alabel.size() > 1024) return false;
  char decoded[4096];  // a label's decoding is at most 4 UTF-8 bytes per input byte
  UIDNAInfo info = UIDNA_INFO_INITIALIZER;
  UErrorCode status = U_ZERO_ERROR;
  const int32_t length = uidna_labelToUnicodeUTF8(idna, alabel.data(), static_cast<int32_t>(alabel.size()), decoded,
                                                  sizeof decoded, &info, &status);
  return U_SUCCESS(status) && has_alabel_prefix(std::string_view(decoded, static_cast<size_t>(std::max(length, 0))));
}

bool has_alabel_prefix(std::string_view label) {
  return label.size() >= 4 && (label[0] == 'x' || label[0] == 'X') && (label[1] == 'n' || label[1] == 'N') &&
         label[2] == '-' && label[3] == '-';
}

bool is_ascii(std::string_view text) {
  return std::ranges::all_of(text, [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

}  // namespace bloomcrawl::url_internal
