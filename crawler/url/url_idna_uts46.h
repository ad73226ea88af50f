// UTS #46 ToASCII exactly as WHATWG's "domain to ASCII" calls it (CheckHyphens=false,
// CheckBidi=true, CheckJoiners=true, UseSTD3ASCIIRules=false, Transitional_Processing=false,
// VerifyDnsLength=false), through ICU's implementation of UTS #46: the one Chromium and WebKit
// use. url_idna.cc asks it only about labels libidn2 rejects: libidn2 applies IDNA2008's
// stricter rules after the UTS #46 mapping, so it refuses symbols UTS #46 calls valid
// ("\u2020" -> "xn--lvg"), hyphens at a label's ends or in positions 3-4, and A-labels over 63
// octets, all of which browsers and the URL standard accept.
#pragma once

#include <string>
#include <string_view>

namespace bloomcrawl::url_internal {

// Appends the ASCII form of `domain` (UTF-8; one label, or several after mapping, e.g. U+3002)
// to `out` and returns true, or returns false with *error (if non-null) naming the failures.
bool uts46_to_ascii(std::string_view domain, std::string& out, std::string* error);

// UTS #46 changed after Unicode 15.0, the version of Debian 12's ICU 72 and libidn2 2.3.3, and
// WPT's IdnaTestV2 (Unicode 16) tests the changes. map_post_unicode_15_0() applies, before the
// lookup, the mapping-table entries that changed: U+1E9E maps to U+00DF instead of "ss"; Georgian
// capitals U+10A0-10C5, U+04C0, U+2132, U+2183 and five CJK compatibility ideographs went from
// disallowed to mapped; Hangul fillers, Khmer U+17B4/17B5, U+180E, U+2061-2063, U+206A-206F and
// U+1D173-1D17A from disallowed to ignored. Every target is valid in both libraries. After the
// lookup, decodes_to_alabel_prefix() is validity criterion V4 (15.1): with CheckHyphens=false a
// label must not begin with "xn--" once decoded ("xn--xn--a--gua").
void map_post_unicode_15_0(std::string& label);
bool decodes_to_alabel_prefix(std::string_view alabel);

bool has_alabel_prefix(std::string_view label);  // "xn--", ASCII case-insensitive
bool is_ascii(std::string_view text);

}  // namespace bloomcrawl::url_internal
