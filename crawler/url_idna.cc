#include "crawler/url_idna.h"

#include <idn2.h>

#include <cstdlib>

#include "crawler/url_idna_fallback.h"

namespace bloomcrawl::url_internal {
namespace {

bool needs_idna(std::string_view label) { return has_alabel_prefix(label) || !is_ascii(label); }

// Runs libidn2 on one label (which after mapping may itself contain dots, e.g. U+3002), with
// the fallbacks for what UTS #46 allows and libidn2 does not.
bool label_to_ascii(std::string_view label, std::string& out, std::string* error) {
  std::string ascii;
  int rc = idn2_lookup_label(label, &ascii);
  if (rc == IDN2_OK) {
    out += ascii;
    return true;
  }
  size_t before = out.size();
  if (symbol_label_to_ascii(label, out)) return true;
  out.resize(before);
  if (hyphenated_label_to_ascii(label, out)) return true;
  out.resize(before);
  if (error) *error = std::string("IDNA error in host label: ") + idn2_strerror(rc);
  return false;
}

}  // namespace

bool domain_to_ascii(std::string_view domain, std::string& out, std::string* error) {
  if (domain.find('\0') != std::string_view::npos) {
    if (error) *error = "NUL byte in host";
    return false;
  }
  size_t start = 0;
  while (true) {
    size_t dot = domain.find('.', start);
    std::string_view label =
        domain.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (needs_idna(label)) {
      if (!label_to_ascii(label, out, error)) return false;
    } else {
      for (char c : label) out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c);
    }
    if (dot == std::string_view::npos) break;
    out.push_back('.');
    start = dot + 1;
  }
  return true;
}

int idn2_lookup_label(std::string_view label, std::string* ascii) {
  std::string input(label);
  uint8_t* result = nullptr;
  int rc = idn2_lookup_u8(reinterpret_cast<const uint8_t*>(input.c_str()), &result,
                          IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT);
  if (rc == IDN2_OK) {
    if (ascii) *ascii = reinterpret_cast<const char*>(result);
    idn2_free(result);
  }
  return rc;
}

}  // namespace bloomcrawl::url_internal
