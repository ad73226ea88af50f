#include "crawler/url_idna_uts46.h"

#include <unicode/uidna.h>

#include <algorithm>
#include <climits>

namespace bloomcrawl::url_internal {
namespace {

constexpr uint32_t kWhatwgFlags = UIDNA_CHECK_BIDI | UIDNA_CHECK_CONTEXTJ | UIDNA_NONTRANSITIONAL_TO_ASCII |
                                  UIDNA_NONTRANSITIONAL_TO_UNICODE;

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
  if (idna == nullptr || domain.size() > INT_MAX / 4) {
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
      if (error) *error = "IDNA error in host: " + (U_FAILURE(status) ? std::string(u_errorName(status)) : describe(errors));
      return false;
    }
    out.resize(before + static_cast<size_t>(length));
    return true;
  }
}

void map_capital_sharp_s(std::string& label) {
  static constexpr std::string_view kCapital = "\xe1\xba\x9e", kSmall = "\xc3\x9f";
  for (size_t at = label.find(kCapital); at != std::string::npos; at = label.find(kCapital, at)) {
    label.replace(at, kCapital.size(), kSmall);
  }
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
  for (char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

}  // namespace bloomcrawl::url_internal
