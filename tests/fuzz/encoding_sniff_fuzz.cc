// libFuzzer target for the encoding sniffer (BOM, Content-Type charset, <meta> prescan), the
// decoder to UTF-8 and the query encoder: no crash, no hang, and their promises hold for any
// bytes. The first byte's low 6 bits give the length of the Content-Type value that follows;
// the rest is the page.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "crawler/extract/encoding_sniff.h"
#include "crawler/extract/page_decode.h"
#include "crawler/url/url.h"
#include "crawler/url/url_percent.h"
#include "crawler/url/url_query_encoding.h"
#include "tests/crawler/extract/links_test_util.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bloomcrawl;
  using namespace std::literals;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  if (input.empty()) return 0;
  const size_t type_length = std::min<size_t>(data[0] & 63, input.size() - 1);
  const std::string_view content_type = input.substr(1, type_length);
  const std::string_view body = input.substr(1 + type_length);

  const SniffedEncoding sniffed = sniff_encoding(body, content_type);
  check(sniffed.bom_length <= body.size());
  check((sniffed.bom_length != 0) == (sniffed.source == EncodingSource::kBom));
  // The prescan never answers with an encoding the standard says it must not.
  if (std::optional<Encoding> meta = prescan_meta_charset(body)) {
    check(*meta != Encoding::kXUserDefined);
    const bool utf16_xml_declaration = body.starts_with("<\0?\0x\0"sv) || body.starts_with("\0<\0?\0x"sv);
    if (!utf16_xml_declaration) check(*meta != Encoding::kUtf16Le && *meta != Encoding::kUtf16Be);
  }
  // The prescan looks at the first kPrescanBytes only.
  if (body.size() > kPrescanBytes) {
    check(prescan_meta_charset(body) == prescan_meta_charset(body.substr(0, kPrescanBytes)));
  }

  const std::string text = decode_to_utf8(body.substr(sniffed.bom_length), sniffed.encoding);
  check(links_test::is_valid_utf8(text));
  // Every byte is read as a character or as part of one, or as U+FFFD; only ISO-2022-JP's
  // escape sequences stand for no character.
  if (sniffed.encoding != Encoding::kIso2022Jp) check(text.empty() == (body.size() == sniffed.bom_length));

  // The decoded text as a query in the page's output encoding: printable ASCII only, as every
  // byte >= 0x80 and every control is percent-encoded.
  std::string query;
  url_internal::append_query_in_encoding(query, text.substr(0, 4096), output_encoding(sniffed.encoding),
                                         url_internal::kSpecialQuerySet);
  for (char c : query) check(c > 0x20 && c < 0x7F);

  // The decoded text as a link on the page: the parser's encoding-override branch. The query is
  // printable ASCII and a special URL is a fixed point of the parser.
  static const Url base = *parse_url("http://h/dir/page?x");
  if (std::optional<Url> url = parse_url(text.substr(0, 512), &base, nullptr, sniffed.encoding)) {
    const std::string href = url->href();
    if (url->query) {
      for (char c : *url->query) check(c > 0x20 && c < 0x7F);
    }
    if (url->is_special()) {
      std::optional<Url> again = parse_url(href, nullptr, nullptr, sniffed.encoding);
      check(again && again->href() == href);
    }
  }
  return 0;
}
