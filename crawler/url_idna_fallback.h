// Closing the gaps between libidn2 and the UTS #46 processing WHATWG's "domain to ASCII" asks
// for (CheckHyphens=false, beStrict=false). libidn2 applies IDNA2008's rules after the TR46
// mapping, so it rejects two kinds of labels that browsers accept; url_idna.cc calls these
// only after libidn2 has rejected a label. Each appends the label's ASCII form and returns true,
// or returns false (with `out` possibly partly written) when the label is invalid after all.
#pragma once

#include <string>
#include <string_view>

namespace bloomcrawl::url_internal {

bool has_alabel_prefix(std::string_view label);  // "xn--", ASCII case-insensitive
bool is_ascii(std::string_view text);

// Symbols and emoji (UTS #46 "valid, NV8", disallowed by IDNA2008): "\u2603" -> "xn--n3h".
bool symbol_label_to_ascii(std::string_view label, std::string& out);

// Labels whose only fault for libidn2 is a hyphen at either end or "--" in positions 3-4,
// which CheckHyphens=false allows: "-\u00fc" -> "xn----..." . Each hyphen-free part is mapped
// by libidn2, the whole label is then Punycode-encoded here. An A-label ("xn----eha") is
// accepted when its decoded form maps back to it.
bool hyphenated_label_to_ascii(std::string_view label, std::string& out);

}  // namespace bloomcrawl::url_internal
