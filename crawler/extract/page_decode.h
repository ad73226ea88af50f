// A page's bytes as UTF-8, decoded as the Encoding Standard's decoders do, for the HTML parser
// (Gumbo reads only UTF-8).
//
// decode_to_utf8() decodes `bytes` (without their byte order mark) from `encoding` with ICU's
// converter for it (encoding.h). Every byte sequence the encoding does not map becomes U+FFFD
// (one per malformed sequence, like the standard's decoders; never ICU's U+001A), the output is
// always valid UTF-8, and no input makes it fail or throw anything but std::bad_alloc. Where
// the standard's decoders differ from ICU's converters in what they map, see docs/encodings.md.
#pragma once

#include <string>
#include <string_view>

#include "crawler/url/encoding.h"

namespace bloomcrawl {

std::string decode_to_utf8(std::string_view bytes, Encoding encoding);

}  // namespace bloomcrawl
