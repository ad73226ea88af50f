#include "crawler/url_idna.h"

#include <idn2.h>

#include <cstdlib>
#include <vector>

#include "crawler/url_punycode.h"

namespace bloomcrawl::url_internal {
namespace {

bool has_alabel_prefix(std::string_view label) {
  return label.size() >= 4 && (label[0] == 'x' || label[0] == 'X') &&
         (label[1] == 'n' || label[1] == 'N') && label[2] == '-' && label[3] == '-';
}

bool is_ascii(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

bool needs_idna(std::string_view label) { return has_alabel_prefix(label) || !is_ascii(label); }

// UTS #46 allows symbols and emoji (status "valid, NV8": not valid under IDNA2008) that
// libidn2's IDNA2008 checks reject, while browsers accept them ("http://\u2603" is
// "http://xn--n3h/"). These blocks hold such code points; UTS #46 maps none of them and NFC
// leaves them alone, so a label of ASCII and these needs no mapping beyond ASCII lowercase.
bool is_uts46_symbol(char32_t c) {
  return (c >= 0x2190 && c <= 0x21FF) || (c >= 0x2300 && c <= 0x23FF && c != 0x2329 && c != 0x232A) ||
         (c >= 0x2500 && c <= 0x27BF) || (c >= 0x2B00 && c <= 0x2BFF) ||
         (c >= 0x1F300 && c <= 0x1F6FF) || (c >= 0x1F900 && c <= 0x1FAFF);
}

// True if `code_points` are ASCII (lowercase) and symbols, with at least one symbol.
bool is_symbol_label(const std::vector<char32_t>& code_points) {
  bool has_symbol = false;
  for (char32_t c : code_points) {
    if (c >= 'A' && c <= 'Z') return false;
    if (c >= 0x80) {
      if (!is_uts46_symbol(c)) return false;
      has_symbol = true;
    }
  }
  return has_symbol;
}

// The fallback for labels libidn2 rejected: accepts a label of ASCII and symbols (Unicode, or
// as its canonical A-label) and appends its A-label.
bool symbol_label_to_ascii(std::string_view label, std::string& out) {
  std::vector<char32_t> code_points;
  if (has_alabel_prefix(label) && is_ascii(label)) {
    std::string lower;
    for (char c : label) lower.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c);
    if (!punycode_decode(std::string_view(lower).substr(4), code_points) ||
        !is_symbol_label(code_points)) {
      return false;
    }
    std::string reencoded = "xn--";
    if (!punycode_encode(code_points, reencoded) || reencoded != lower) return false;
    out += lower;
    return true;
  }
  std::vector<char32_t> decoded;
  if (!decode_utf8(label, decoded)) return false;
  for (char32_t c : decoded) {
    if (c >= 0xFE00 && c <= 0xFE0F) continue;  // variation selectors: ignored by UTS #46
    code_points.push_back(c >= 'A' && c <= 'Z' ? c + 32 : c);
  }
  if (!is_symbol_label(code_points)) return false;
  out += "xn--";
  return punycode_encode(code_points, out);
}

// Runs libidn2 on one label (which after mapping may itself contain dots, e.g. U+3002).
bool label_to_ascii(std::string_view label, std::string& out, std::string* error) {
  std::string input(label);
  uint8_t* result = nullptr;
  int rc = idn2_lookup_u8(reinterpret_cast<const uint8_t*>(input.c_str()), &result,
                          IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT);
  if (rc != IDN2_OK) {
    size_t before = out.size();
    if (symbol_label_to_ascii(label, out)) return true;
    out.resize(before);
    if (error) *error = std::string("IDNA error in host label: ") + idn2_strerror(rc);
    return false;
  }
  out += reinterpret_cast<const char*>(result);
  idn2_free(result);
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

}  // namespace bloomcrawl::url_internal
