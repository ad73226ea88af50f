// The HTML standard's encoding sniffing (https://html.spec.whatwg.org/#encoding-sniffing-algorithm):
// which encoding a browser reads a fetched page in, decided from its bytes and its Content-Type.
//
// sniff_encoding() tries, in order: a byte order mark (UTF-8, UTF-16BE, UTF-16LE); the
// Content-Type header's charset parameter; the <meta charset> / <meta http-equiv=Content-Type>
// prescan of the first kPrescanBytes bytes; then, as the standard lets a user agent
// autodetect, UTF-8 if the bytes are valid UTF-8 with at least one non-ASCII character; and
// finally windows-1252, the browsers' default in most locales. Labels are the Encoding
// Standard's (encoding.h). docs/encodings.md gives the reasons for the last two steps.
// Every function here reads only its input, never throws, and costs O(input).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "crawler/url/encoding.h"

namespace bloomcrawl {

// How far the prescan looks for a <meta> that declares the encoding: a later one is ignored.
inline constexpr size_t kPrescanBytes = 1024;

enum class EncodingSource {
  kBom,           // a byte order mark
  kContentType,   // the Content-Type header's charset
  kMeta,          // <meta charset> or <meta http-equiv=Content-Type content="...; charset=...">
  kUtf8Detected,  // no declaration; the bytes are valid UTF-8 and not all ASCII
  kDefault,       // no declaration; windows-1252
};

// "bom", "content-type", "meta", "utf8-detected", "default".
const char* encoding_source_name(EncodingSource source);

struct SniffedEncoding {
  Encoding encoding = Encoding::kWindows1252;
  EncodingSource source = EncodingSource::kDefault;
  size_t bom_length = 0;  // bytes of byte order mark to skip before decoding
};

SniffedEncoding sniff_encoding(std::string_view body, std::string_view content_type);

// The encoding named by the charset parameter of a Content-Type value (MIME type parameters:
// the first "charset" wins, quoted strings are unquoted), or nullopt if none or an unknown label.
std::optional<Encoding> content_type_charset(std::string_view content_type);

// The HTML standard's "prescan a byte stream to determine its encoding" over the first
// kPrescanBytes of `bytes`. UTF-16 declared in a <meta> means UTF-8 (the bytes being read
// are ASCII-compatible) and x-user-defined means windows-1252, as the standard says; an XML
// declaration in UTF-16 without a byte order mark ("<?x" with NULs) means that UTF-16.
std::optional<Encoding> prescan_meta_charset(std::string_view bytes);

// "extracting a character encoding from a meta element": the encoding a
// <meta http-equiv=Content-Type> content value names ("text/html; charset=gbk"), or nullopt.
std::optional<Encoding> meta_content_charset(std::string_view content);

}  // namespace bloomcrawl
