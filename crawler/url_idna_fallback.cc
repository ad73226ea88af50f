#include "crawler/url_idna_fallback.h"

#include <idn2.h>

#include <vector>

#include "crawler/url_idna.h"
#include "crawler/url_punycode.h"

namespace bloomcrawl::url_internal {
namespace {

std::string ascii_lowercase(std::string_view text) {
  std::string lower;
  lower.reserve(text.size());
  for (char c : text) lower.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c);
  return lower;
}

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

}  // namespace

bool symbol_label_to_ascii(std::string_view label, std::string& out) {
  std::vector<char32_t> code_points;
  if (has_alabel_prefix(label) && is_ascii(label)) {
    std::string lower = ascii_lowercase(label);
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

namespace {

// True if libidn2 rejects `label` for a hyphen rule that CheckHyphens=false turns off.
bool fails_only_on_hyphens(std::string_view label) {
  int rc = idn2_lookup_label(label, nullptr);
  return rc == IDN2_2HYPHEN || rc == IDN2_HYPHEN_STARTEND;
}

// Appends the UTS #46 mapping of one hyphen-free part of a label, as code points.
bool append_mapped_part(std::string_view part, std::vector<char32_t>& code_points) {
  if (is_ascii(part)) {
    for (char c : part) code_points.push_back(static_cast<char32_t>(c >= 'A' && c <= 'Z' ? c + 32 : c));
    return true;
  }
  std::string ascii;
  if (idn2_lookup_label(part, &ascii) != IDN2_OK) return false;
  if (ascii.find('.') != std::string::npos) return false;  // the mapping split the label
  if (!has_alabel_prefix(ascii)) return append_mapped_part(ascii, code_points);
  std::vector<char32_t> decoded;
  if (!punycode_decode(std::string_view(ascii).substr(4), decoded)) return false;
  code_points.insert(code_points.end(), decoded.begin(), decoded.end());
  return true;
}

}  // namespace

bool hyphenated_label_to_ascii(std::string_view label, std::string& out) {
  if (is_ascii(label)) {
    // An A-label is valid if its U-label maps back to exactly it.
    if (!has_alabel_prefix(label)) return false;
    std::string lower = ascii_lowercase(label);
    std::vector<char32_t> decoded;
    if (!punycode_decode(std::string_view(lower).substr(4), decoded)) return false;
    std::string unicode;
    append_utf8(decoded, unicode);
    std::string again;
    if (is_ascii(unicode) || !hyphenated_label_to_ascii(unicode, again) || again != lower) {
      return false;
    }
    out += lower;
    return true;
  }
  if (!fails_only_on_hyphens(label)) return false;
  std::vector<char32_t> code_points;
  size_t start = 0;
  while (true) {
    size_t dash = label.find('-', start);
    std::string_view part = label.substr(start, dash == std::string_view::npos ? dash : dash - start);
    if (!append_mapped_part(part, code_points)) return false;
    if (dash == std::string_view::npos) break;
    code_points.push_back('-');
    start = dash + 1;
  }
  bool all_ascii = true;
  for (char32_t c : code_points) all_ascii = all_ascii && c < 0x80;
  if (all_ascii) {  // e.g. fullwidth letters: the label maps to plain ASCII
    std::string mapped;
    for (char32_t c : code_points) mapped.push_back(static_cast<char>(c));
    if (has_alabel_prefix(mapped)) return false;  // would have to be a valid A-label itself
    out += mapped;
    return true;
  }
  out += "xn--";
  return punycode_encode(code_points, out);
}

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

}  // namespace bloomcrawl::url_internal
