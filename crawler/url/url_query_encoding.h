// The URL Standard's "percent-encode after encoding" for a query in a legacy encoding: the
// "encoding override" with which browsers resolve the links of a page that is not in UTF-8, so
// that `?q=布隆` on a GBK page is requested as `?q=%B2%BC%C2%A1`.
//
// append_query_in_encoding() encodes `utf8` (UTF-8; invalid bytes count as U+FFFD) in
// `encoding` as the Encoding Standard's encoder does, percent-encodes each output byte that is
// in `set` (bytes >= 0x80 always are), and writes each code point the encoding cannot represent
// as "%26%23NNNN%3B" (the decimal "&#NNNN;", percent-encoded). `encoding` must be an output
// encoding (not UTF-16 or replacement, see output_encoding()). With UTF-8 the result equals
// append_encoded(). ICU does the table lookups; the encoders' rules that ICU's converters do
// not share are applied here (docs/encodings.md).
#pragma once

#include <string>
#include <string_view>

#include "crawler/url/encoding.h"
#include "crawler/url/url_percent.h"

namespace bloomcrawl::url_internal {

void append_query_in_encoding(std::string& out, std::string_view utf8, Encoding encoding, const EncodeSet& set);

}  // namespace bloomcrawl::url_internal
