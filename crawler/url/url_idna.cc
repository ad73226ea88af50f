#include "crawler/url/url_idna.h"

#include <idn2.h>

#include <algorithm>
#include <cstdlib>

#include "crawler/url/url_idna_uts46.h"

namespace bloomcrawl::url_internal {
namespace {

// libidn2's non-transitional UTS #46 lookup of one label: IDN2_OK and its ASCII form, or the error.
int idn2_lookup_label(const std::string& label, std::string* ascii) {
  uint8_t* result = nullptr;
  int rc =
      idn2_lookup_u8(reinterpret_cast<const uint8_t*>(label.c_str()), &result, IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT);
  if (rc == IDN2_OK) {
    if (ascii) *ascii = reinterpret_cast<const char*>(result);
    idn2_free(result);
  }
  return rc;
}

bool needs_idna(std::string_view label) { return has_alabel_prefix(label) || !is_ascii(label); }

// Runs libidn2 on one label (which after mapping may itself contain dots, e.g. U+3002). What
// libidn2's IDNA2008 rules reject, UTS #46 itself (ICU) decides: see url_idna_uts46.h.
bool label_to_ascii(std::string_view label, std::string& out, std::string* error) {
  std::string input(label);
  map_post_unicode_15_0(input);
  const size_t start = out.size();
  std::string ascii;
  if (idn2_lookup_label(input, &ascii) == IDN2_OK) {
    out += ascii;
  } else if (!uts46_to_ascii(input, out, error)) {
    return false;
  }
  // The result may be several labels (the mapping can produce dots); each is checked.
  for (size_t at = start; at <= out.size();) {
    const size_t dot = std::min(out.find('.', at), out.size());
    if (decodes_to_alabel_prefix(std::string_view(out).substr(at, dot - at))) {
      if (error)
        *error = "IDNA error in host: label '" + out.substr(at, dot - at) + "' decodes to one starting with xn--";
      return false;
    }
    at = dot + 1;
  }
  return true;
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
    std::string_view label = domain.substr(start, dot == std::string_view::npos ? dot : dot - start);
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

}  // namespace bloomcrawl::url_internal
