// Domain to ASCII (WHATWG "domain to ASCII" with beStrict=false): UTS #46 non-transitional
// processing through libidn2, with ICU's UTS #46 deciding the labels libidn2's IDNA2008 rules
// reject (url_idna_uts46.h); CheckHyphens=false, no STD3 rules, no DNS length checks. ASCII
// labels that are not A-labels ("xn--") are only lowercased, as the spec allows; A-labels are
// checked (valid Punycode decoding to a valid U-label) and kept.
#pragma once

#include <string>
#include <string_view>

namespace bloomcrawl::url_internal {

// `domain` is the percent-decoded host as UTF-8. Appends the ASCII form to `out`; returns
// false (and sets *error if non-null) when IDNA processing rejects it.
bool domain_to_ascii(std::string_view domain, std::string& out, std::string* error);

}  // namespace bloomcrawl::url_internal
