// Punycode (RFC 3492) for IDNA labels, on code points. Used where libidn2 cannot be: labels of
// symbols and emoji that UTS #46 allows but libidn2's IDNA2008 rules reject (see url_idna.cc).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace bloomcrawl::url_internal {

// Appends the Punycode encoding of `code_points` (without the "xn--" prefix). False on overflow.
bool punycode_encode(const std::vector<char32_t>& code_points, std::string& out);
// Decodes `input` (without the "xn--" prefix) into `out`, which must be empty. False if it is
// not valid Punycode.
bool punycode_decode(std::string_view input, std::vector<char32_t>& out);

// UTF-8 <-> code points. decode_utf8 rejects invalid or overlong sequences and surrogates.
bool decode_utf8(std::string_view input, std::vector<char32_t>& out);
void append_utf8(const std::vector<char32_t>& code_points, std::string& out);

}  // namespace bloomcrawl::url_internal
