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

// Two rules UTS #46 gained in Unicode 15.1, after Debian 12's ICU 72 and libidn2 2.3.3 (Unicode
// 15.0): U+1E9E (capital sharp s) maps to U+00DF instead of "ss", and with CheckHyphens=false a
// label must not begin with "xn--" once decoded (validity criterion V4: "xn--xn--a--gua").
// The mapping goes before the lookup, the check after it on each resulting A-label.
void map_capital_sharp_s(std::string& label);
bool decodes_to_alabel_prefix(std::string_view alabel);

bool has_alabel_prefix(std::string_view label);  // "xn--", ASCII case-insensitive
bool is_ascii(std::string_view text);

}  // namespace bloomcrawl::url_internal
