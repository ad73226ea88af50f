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

bool has_alabel_prefix(std::string_view label);  // "xn--", ASCII case-insensitive
bool is_ascii(std::string_view text);

}  // namespace bloomcrawl::url_internal
