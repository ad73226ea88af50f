// The URL Standard's encoding override: a link's query is encoded in the encoding of the page it
// is in, its path (and everything else) in UTF-8. Expected bytes are those of the Encoding
// Standard's encoders (they equal Python's codecs for these characters), not ICU's output.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "crawler/url/canonical.h"
#include "crawler/url/url.h"

namespace bloomcrawl {
namespace {

// `input` resolved against http://h/dir/page.html on a page in `encoding`.
std::string resolve(std::string_view input, Encoding encoding, std::string_view base_url = "http://h/dir/page.html") {
  std::optional<Url> base = parse_url(base_url);
  std::string error;
  std::optional<Url> url = parse_url(input, &*base, &error, encoding);
  return url ? url->href() : "failed: " + error;
}

TEST(UrlQueryEncoding, HoldOutGbkAndWindows1252Pages) {
  EXPECT_EQ(resolve("/中文.html", Encoding::kGbk), "http://h/%E4%B8%AD%E6%96%87.html");
  EXPECT_EQ(resolve("/s?q=布隆", Encoding::kGbk), "http://h/s?q=%B2%BC%C2%A1");
  EXPECT_EQ(resolve("/café.html", Encoding::kWindows1252), "http://h/caf%C3%A9.html");
  EXPECT_EQ(resolve("/s2?q=é", Encoding::kWindows1252), "http://h/s2?q=%E9");
}

TEST(UrlQueryEncoding, Utf8IsTheDefault) {
  EXPECT_EQ(resolve("/s?q=布隆", Encoding::kUtf8), "http://h/s?q=%E5%B8%83%E9%9A%86");
  std::optional<Url> base = parse_url("http://h/");
  EXPECT_EQ(parse_url("/s?q=é", &*base)->href(), "http://h/s?q=%C3%A9");
}

TEST(UrlQueryEncoding, EachLegacyEncoding) {
  EXPECT_EQ(resolve("?q=中€𠀀", Encoding::kGb18030), "http://h/dir/page.html?q=%D6%D0%A2%E3%952%826");
  EXPECT_EQ(resolve("?q=台北", Encoding::kBig5), "http://h/dir/page.html?q=%A5x%A5_");
  EXPECT_EQ(resolve("?q=東京", Encoding::kShiftJis), "http://h/dir/page.html?q=%93%8C%8B%9E");
  // A trail byte in the ASCII range is not in the query percent-encode set: it stays as it is.
  EXPECT_EQ(resolve("?q=ソ", Encoding::kShiftJis), "http://h/dir/page.html?q=%83\\");
  EXPECT_EQ(resolve("?q=서울", Encoding::kEucKr), "http://h/dir/page.html?q=%BC%AD%BF%EF");
  EXPECT_EQ(resolve("?q=あ", Encoding::kEucJp), "http://h/dir/page.html?q=%A4%A2");
  // ISO-2022-JP shifts to JIS X 0208 and back; '"' is in the query set.
  EXPECT_EQ(resolve("?q=あ", Encoding::kIso2022Jp), "http://h/dir/page.html?q=%1B$B$%22%1B(B");
  EXPECT_EQ(resolve("?q=€", Encoding::kWindows1252), "http://h/dir/page.html?q=%80");
  EXPECT_EQ(resolve("?q=Ж", Encoding::kWindows1251), "http://h/dir/page.html?q=%C6");
  EXPECT_EQ(resolve("?q=ș€", Encoding::kIso8859_16), "http://h/dir/page.html?q=%BA%A4");           // without ICU
  EXPECT_EQ(resolve("?q=\xEF\x9E\x80", Encoding::kXUserDefined), "http://h/dir/page.html?q=%80");  // U+F780
}

TEST(UrlQueryEncoding, EncoderRulesIcuDoesNotHave) {
  EXPECT_EQ(resolve("?q=€", Encoding::kGbk), "http://h/dir/page.html?q=%80");
  EXPECT_EQ(resolve("?q=¥‾", Encoding::kShiftJis), "http://h/dir/page.html?q=\\~");
  EXPECT_EQ(resolve("?q=¥‾", Encoding::kEucJp), "http://h/dir/page.html?q=\\~");
  EXPECT_EQ(resolve("?q=−", Encoding::kShiftJis), "http://h/dir/page.html?q=%81|");  // U+2212 as U+FF0D
  EXPECT_EQ(resolve("?q=\xC2\x80", Encoding::kShiftJis), "http://h/dir/page.html?q=%80");
  // GBK has no four-byte sequences; gb18030 has.
  EXPECT_EQ(resolve("?q=𠀀", Encoding::kGbk), "http://h/dir/page.html?q=%26%23131072%3B");
  EXPECT_EQ(resolve("?q=\xEE\x97\xA5", Encoding::kGb18030), "http://h/dir/page.html?q=%26%2358853%3B");  // U+E5E5
  // Big5's encoder leaves out the Hong Kong extensions its decoder reads (0x8740 is U+43F0).
  EXPECT_EQ(resolve("?q=\xE4\x8F\xB0", Encoding::kBig5), "http://h/dir/page.html?q=%26%2317392%3B");
}

TEST(UrlQueryEncoding, UnmappableCharactersBecomeNumericReferences) {
  EXPECT_EQ(resolve("/s?q=é中x", Encoding::kWindows1252), "http://h/s?q=%E9%26%2320013%3Bx");
  EXPECT_EQ(resolve("?q=😀", Encoding::kShiftJis), "http://h/dir/page.html?q=%26%23128512%3B");
  EXPECT_EQ(resolve("?q=é", Encoding::kXUserDefined), "http://h/dir/page.html?q=%26%23233%3B");
  // Invalid UTF-8 reads as U+FFFD, which no legacy encoding has.
  EXPECT_EQ(resolve("?q=\xFF", Encoding::kGbk), "http://h/dir/page.html?q=%26%2365533%3B");
  // ISO-2022-JP: the reference is written in the ASCII state, after shifting back.
  EXPECT_EQ(resolve("?q=あ😀あ", Encoding::kIso2022Jp),
            "http://h/dir/page.html?q=%1B$B$%22%1B(B%26%23128512%3B%1B$B$%22%1B(B");
}

TEST(UrlQueryEncoding, OnlyTheQueryOfSpecialUrls) {
  // Path, fragment, userinfo and host stay UTF-8.
  EXPECT_EQ(resolve("/é/?é#é", Encoding::kWindows1252), "http://h/%C3%A9/?%E9#%C3%A9");
  EXPECT_EQ(resolve("http://é@h/", Encoding::kWindows1252), "http://%C3%A9@h/");
  // Non-special schemes and ws/wss use UTF-8 (URL Standard, query state step 1).
  EXPECT_EQ(resolve("foo://h/?é", Encoding::kWindows1252), "foo://h/?%C3%A9");
  EXPECT_EQ(resolve("ws://h/?é", Encoding::kWindows1252), "ws://h/?%C3%A9");
  EXPECT_EQ(resolve("wss://h/?é", Encoding::kWindows1252), "wss://h/?%C3%A9");
  EXPECT_EQ(resolve("https://h/?é", Encoding::kWindows1252), "https://h/?%E9");
  // The special-query set still applies to ASCII, and a base's query is kept as it was.
  EXPECT_EQ(resolve("?a='é <", Encoding::kWindows1252), "http://h/dir/page.html?a=%27%E9%20%3C");
  EXPECT_EQ(resolve("#x", Encoding::kWindows1252, "http://h/?q=%C3%A9"), "http://h/?q=%C3%A9#x");
}

TEST(UrlQueryEncoding, Utf16AndReplacementPagesUseUtf8) {
  for (Encoding encoding : {Encoding::kUtf16Le, Encoding::kUtf16Be, Encoding::kReplacement}) {
    EXPECT_EQ(resolve("/s?q=é", encoding), "http://h/s?q=%C3%A9") << encoding_name(encoding);
  }
}

TEST(UrlQueryEncoding, CanonicalizeKeepsTheEncodedQuery) {
  std::optional<Url> base = parse_url("http://h/");
  CanonicalUrl c = canonicalize("/s?q=布隆", &*base, CanonicalizeOptions{}, Encoding::kGbk);
  ASSERT_TRUE(c.ok()) << c.error;
  EXPECT_EQ(c.url, "http://h/s?q=%B2%BC%C2%A1");
  // The canonical URL is a fixed point whatever the page's encoding was.
  EXPECT_EQ(canonicalize(c.url, nullptr, CanonicalizeOptions{}).url, c.url);
  EXPECT_EQ(canonicalize("/s?q=布隆", &*base, CanonicalizeOptions{}).url, "http://h/s?q=%E5%B8%83%E9%9A%86");
}

}  // namespace
}  // namespace bloomcrawl
