// The HTML standard's encoding sniffing: byte order mark, then the Content-Type charset, then
// the <meta> prescan of the first 1024 bytes, then UTF-8 if the bytes are UTF-8, then
// windows-1252.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "crawler/extract/encoding_sniff.h"
#include "tests/crawler/extract/links_test_util.h"

namespace bloomcrawl {
namespace {

using namespace std::literals;
using links_test::repeat;

std::optional<Encoding> prescan(std::string_view html) { return prescan_meta_charset(html); }

TEST(EncodingSniff, ByteOrderMarkBeatsContentTypeAndMeta) {
  const std::string meta = "<meta charset=gbk><a href=x>";
  SniffedEncoding s = sniff_encoding("\xEF\xBB\xBF" + meta, "text/html; charset=shift_jis");
  EXPECT_EQ(s.encoding, Encoding::kUtf8);
  EXPECT_EQ(s.source, EncodingSource::kBom);
  EXPECT_EQ(s.bom_length, 3u);
  s = sniff_encoding("\xFE\xFF\0<"s, "text/html; charset=gbk");
  EXPECT_EQ(s.encoding, Encoding::kUtf16Be);
  EXPECT_EQ(s.bom_length, 2u);
  s = sniff_encoding("\xFF\xFE<\0"s, "text/html; charset=gbk");
  EXPECT_EQ(s.encoding, Encoding::kUtf16Le);
  EXPECT_EQ(s.bom_length, 2u);
}

TEST(EncodingSniff, ContentTypeBeatsMeta) {
  SniffedEncoding s = sniff_encoding("<meta charset=gbk>", "text/html; charset=windows-1252");
  EXPECT_EQ(s.encoding, Encoding::kWindows1252);
  EXPECT_EQ(s.source, EncodingSource::kContentType);
  EXPECT_EQ(s.bom_length, 0u);
  // An unknown charset is as if there were none: the meta decides.
  s = sniff_encoding("<meta charset=gbk>", "text/html; charset=klingon");
  EXPECT_EQ(s.encoding, Encoding::kGbk);
  EXPECT_EQ(s.source, EncodingSource::kMeta);
}

TEST(EncodingSniff, ContentTypeCharsetParameter) {
  EXPECT_EQ(content_type_charset("text/html; charset=GB2312"), Encoding::kGbk);
  EXPECT_EQ(content_type_charset("text/html;charset=\"Shift_JIS\""), Encoding::kShiftJis);
  EXPECT_EQ(content_type_charset("text/html; CHARSET=latin1 ; q=1"), Encoding::kWindows1252);
  EXPECT_EQ(content_type_charset("text/html; format=flowed; charset=euc-kr"), Encoding::kEucKr);
  EXPECT_EQ(content_type_charset("text/html; charset=big5; charset=gbk"), Encoding::kBig5);  // the first
  EXPECT_EQ(content_type_charset("text/html; charset=\"b\\ig5\" junk"), Encoding::kBig5);    // quoted-pair
  EXPECT_EQ(content_type_charset("text/html; charset=utf-16"), Encoding::kUtf16Le);          // HTTP may say UTF-16
  EXPECT_EQ(content_type_charset("text/html; x=\"a;charset=gbk\"; charset=big5"), Encoding::kBig5);
  EXPECT_EQ(content_type_charset("text/html"), std::nullopt);
  EXPECT_EQ(content_type_charset(""), std::nullopt);
  EXPECT_EQ(content_type_charset("text/html; charset="), std::nullopt);
  EXPECT_EQ(content_type_charset("text/html; charset"), std::nullopt);
  EXPECT_EQ(content_type_charset("text/html; charset =gbk"), std::nullopt);  // "charset " is another name
  EXPECT_EQ(content_type_charset("charset=gbk"), std::nullopt);              // no parameters at all
}

TEST(EncodingSniff, MetaCharsetAttribute) {
  EXPECT_EQ(prescan("<meta charset=gbk>"), Encoding::kGbk);
  EXPECT_EQ(prescan("<META CHARSET='Big5'>"), Encoding::kBig5);
  EXPECT_EQ(prescan("<meta charset=\"shift_jis\">"), Encoding::kShiftJis);
  EXPECT_EQ(prescan("<meta/charset=euc-kr>"), Encoding::kEucKr);
  EXPECT_EQ(prescan("<meta\ncharset = \" gb18030 \" >"), Encoding::kGb18030);  // label whitespace trimmed
  EXPECT_EQ(prescan("<!DOCTYPE html><html><head><title>t</title><meta charset=latin1>"), Encoding::kWindows1252);
  EXPECT_EQ(prescan("<meta charset=nonsense><meta charset=gbk>"), Encoding::kGbk);  // the next meta counts
  EXPECT_EQ(prescan("<meta charset=gbk charset=big5>"), Encoding::kGbk);            // a repeated attribute is ignored
  EXPECT_EQ(prescan("<metacharset=gbk>"), std::nullopt);
  EXPECT_EQ(prescan("<meta name=charset content=gbk>"), std::nullopt);
  EXPECT_EQ(prescan("<meta charset=gbk"), std::nullopt);  // the tag never ends
}

TEST(EncodingSniff, MetaHttpEquivContentType) {
  EXPECT_EQ(prescan("<meta http-equiv=Content-Type content=\"text/html; charset=gbk\">"), Encoding::kGbk);
  // content before http-equiv: the order of the attributes does not matter.
  EXPECT_EQ(prescan("<meta content='text/html;charset=big5' http-equiv='content-type'>"), Encoding::kBig5);
  EXPECT_EQ(prescan("<meta content=\"text/html; charset='euc-kr'\" http-equiv=\"Content-Type\">"), Encoding::kEucKr);
  // Without the pragma, or with another one, content means nothing.
  EXPECT_EQ(prescan("<meta content=\"text/html; charset=gbk\">"), std::nullopt);
  EXPECT_EQ(prescan("<meta http-equiv=refresh content=\"0; charset=gbk\">"), std::nullopt);
  // A charset attribute wins over content, and a bad charset attribute is not overridden.
  EXPECT_EQ(prescan("<meta http-equiv=content-type content='charset=big5' charset=gbk>"), Encoding::kGbk);
  EXPECT_EQ(prescan("<meta charset=bad http-equiv=content-type content='charset=big5'>"), std::nullopt);
}

TEST(EncodingSniff, MetaContentValue) {
  EXPECT_EQ(meta_content_charset("text/html; charset=gbk"), Encoding::kGbk);
  EXPECT_EQ(meta_content_charset("text/html; CharSet = 'sjis'"), Encoding::kShiftJis);
  EXPECT_EQ(meta_content_charset("charset=\"big5\" x"), Encoding::kBig5);
  EXPECT_EQ(meta_content_charset("xcharset=latin1"), Encoding::kWindows1252);  // any "charset" counts
  EXPECT_EQ(meta_content_charset("charsetcharset=euc-kr"), Encoding::kEucKr);  // look again after a miss
  EXPECT_EQ(meta_content_charset("charset=gbk;foo"), Encoding::kGbk);
  EXPECT_EQ(meta_content_charset("charset=\"gbk"), std::nullopt);  // unmatched quote
  EXPECT_EQ(meta_content_charset("charset="), std::nullopt);
  EXPECT_EQ(meta_content_charset("text/html"), std::nullopt);
}

TEST(EncodingSniff, Utf16AndXUserDefinedMetaMeanAsciiCompatible) {
  EXPECT_EQ(prescan("<meta charset=utf-16>"), Encoding::kUtf8);
  EXPECT_EQ(prescan("<meta charset=utf-16be>"), Encoding::kUtf8);
  EXPECT_EQ(prescan("<meta http-equiv=content-type content='charset=unicode'>"), Encoding::kUtf8);
  EXPECT_EQ(prescan("<meta charset=x-user-defined>"), Encoding::kWindows1252);
  // An XML declaration in UTF-16 without a byte order mark.
  EXPECT_EQ(prescan("<\0?\0x\0m\0l\0"sv), Encoding::kUtf16Le);
  EXPECT_EQ(prescan("\0<\0?\0x\0m\0l"sv), Encoding::kUtf16Be);
}

TEST(EncodingSniff, CommentsAndOtherMarkupAreSkipped) {
  EXPECT_EQ(prescan("<!-- <meta charset=big5> --><meta charset=gbk>"), Encoding::kGbk);
  EXPECT_EQ(prescan("<!--><meta charset=gbk>"), Encoding::kGbk);  // "<!-->" is a whole comment
  EXPECT_EQ(prescan("<!-- -- > <meta charset=big5> --><meta charset=gbk>"), Encoding::kGbk);
  EXPECT_EQ(prescan("<!-- <meta charset=big5>"), std::nullopt);  // the comment never ends
  EXPECT_EQ(prescan("<div title='<meta charset=big5>'><meta charset=gbk>"), Encoding::kGbk);
  EXPECT_EQ(prescan("<!DOCTYPE html <meta charset=big5>><meta charset=gbk>"), Encoding::kGbk);
  EXPECT_EQ(prescan("<?xml <meta charset=big5>?><meta charset=gbk>"), Encoding::kGbk);
  EXPECT_EQ(prescan("</p title='<meta charset=big5>'><meta charset=gbk>"), Encoding::kGbk);
  // A script is not special to the prescan (nor to browsers' prescans).
  EXPECT_EQ(prescan("<script>document.write('<meta charset=big5>')</script>"), Encoding::kBig5);
}

TEST(EncodingSniff, OnlyTheFirst1024BytesArePrescanned) {
  const std::string meta = "<meta charset=gbk>";
  const std::string before_limit = repeat(" ", kPrescanBytes - meta.size()) + meta;
  EXPECT_EQ(prescan(before_limit), Encoding::kGbk);
  EXPECT_EQ(prescan(" " + before_limit), std::nullopt);  // its '>' is byte 1025
  EXPECT_EQ(prescan(repeat("<p>x</p>", 200) + meta), std::nullopt);
  SniffedEncoding s = sniff_encoding(repeat("<p>x</p>", 200) + meta, "text/html");
  EXPECT_EQ(s.encoding, Encoding::kWindows1252);
  EXPECT_EQ(s.source, EncodingSource::kDefault);
}

TEST(EncodingSniff, UndeclaredUtf8IsDetectedAndEverythingElseIsWindows1252) {
  SniffedEncoding s = sniff_encoding("<a href=/caf\xC3\xA9>", "text/html");
  EXPECT_EQ(s.encoding, Encoding::kUtf8);
  EXPECT_EQ(s.source, EncodingSource::kUtf8Detected);
  // Cut by the byte cap inside a character: still UTF-8.
  EXPECT_EQ(sniff_encoding("<a href=/caf\xC3\xA9\xE4\xB8", "").encoding, Encoding::kUtf8);
  EXPECT_EQ(sniff_encoding("<a href=/caf\xE9>", "").encoding, Encoding::kWindows1252);
  EXPECT_EQ(sniff_encoding("<a href=/caf\xC3\xA9\xE4>x", "").encoding, Encoding::kWindows1252);
  EXPECT_EQ(sniff_encoding("<a href=/\xED\xA0\x80>", "").encoding, Encoding::kWindows1252);  // a surrogate
  EXPECT_EQ(sniff_encoding("<a href=/\xC0\xAF>", "").encoding, Encoding::kWindows1252);      // overlong
  s = sniff_encoding("<a href=/ascii?q=&eacute;>", "");
  EXPECT_EQ(s.encoding, Encoding::kWindows1252);
  EXPECT_EQ(s.source, EncodingSource::kDefault);
  EXPECT_EQ(sniff_encoding("", "").encoding, Encoding::kWindows1252);
  EXPECT_STREQ(encoding_source_name(EncodingSource::kUtf8Detected), "utf8-detected");
}

}  // namespace
}  // namespace bloomcrawl
