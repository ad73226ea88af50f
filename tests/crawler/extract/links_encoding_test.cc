// Links of pages in legacy encodings, resolved as the crawler resolves them (extract_page_links,
// then canonicalize with the page's encoding): the URLs must be those a browser requests. The
// pages' bytes are written out, so the test does not depend on the encoders it checks.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "crawler/extract/links.h"
#include "crawler/url/canonical.h"

namespace bloomcrawl {
namespace {

using namespace std::literals;
using Urls = std::vector<std::string>;

struct Page {
  Encoding encoding;
  Urls urls;
};

// Every link of `body`, resolved against http://h/dir/page.html.
Page crawl(std::string_view body, std::string_view content_type) {
  ExtractedLinks links = extract_page_links(body, content_type, LinkExtractOptions{});
  EXPECT_EQ(links.parse_error, "");
  std::optional<Url> page = parse_url("http://h/dir/page.html");
  Page out{links.encoding, {}};
  for (const Link& link : links.links) {
    CanonicalUrl url = canonicalize(link.href, &*page, CanonicalizeOptions{}, links.encoding);
    out.urls.push_back(url.ok() ? url.url : "dropped: " + url.error);
  }
  return out;
}

// `text` as UTF-16 bytes with a byte order mark.
std::string utf16_with_bom(std::u16string_view text, bool big_endian) {
  std::string out = big_endian ? "\xFE\xFF" : "\xFF\xFE";
  for (char16_t unit : text) {
    const auto high = static_cast<char>(unit >> 8);
    const auto low = static_cast<char>(unit & 0xFF);
    out += big_endian ? std::string{high, low} : std::string{low, high};
  }
  return out;
}

TEST(LinksEncoding, HoldOutGbkPage) {
  // <a href="/中文.html"> and <a href="/s?q=布隆"> in GBK, declared as gb2312 (which means GBK).
  const std::string body =
      "<html><head><meta charset=\"gb2312\"></head><body>"
      "<a href=\"/\xD6\xD0\xCE\xC4.html\">x</a><a href=\"/s?q=\xB2\xBC\xC2\xA1\">y</a>";
  Page page = crawl(body, "text/html");
  EXPECT_EQ(page.encoding, Encoding::kGbk);
  EXPECT_EQ(page.urls, (Urls{"http://h/%E4%B8%AD%E6%96%87.html", "http://h/s?q=%B2%BC%C2%A1"}));
}

TEST(LinksEncoding, HoldOutWindows1252Page) {
  // <a href="/café.html"> and <a href="/s2?q=é"> in windows-1252, undeclared.
  const std::string body = "<p><a href=\"/caf\xE9.html\">x</a> <a href=\"/s2?q=\xE9\">y</a>";
  const Urls expected{"http://h/caf%C3%A9.html", "http://h/s2?q=%E9"};
  Page page = crawl(body, "text/html");
  EXPECT_EQ(page.encoding, Encoding::kWindows1252);
  EXPECT_EQ(page.urls, expected);
  // Declared as latin1 in the header: the same.
  page = crawl(body, "text/html; charset=ISO-8859-1");
  EXPECT_EQ(page.encoding, Encoding::kWindows1252);
  EXPECT_EQ(page.urls, expected);
}

TEST(LinksEncoding, Gb18030Page) {
  // /中𠀀.html and ?q=中€𠀀, the last in four bytes; declared in the header.
  Page page = crawl("<a href='/\xD6\xD0\x95\x32\x82\x36.html'></a><a href='?q=\xD6\xD0\xA2\xE3\x95\x32\x82\x36'>",
                    "text/html; charset=GB18030");
  EXPECT_EQ(page.encoding, Encoding::kGb18030);
  EXPECT_EQ(page.urls, (Urls{"http://h/%E4%B8%AD%F0%A0%80%80.html", "http://h/dir/page.html?q=%D6%D0%A2%E3%952%826"}));
}

TEST(LinksEncoding, Big5Page) {
  // /中文.html and /s?q=台北, declared by <meta http-equiv> with content first.
  Page page = crawl(
      "<meta content=\"text/html; charset=big5\" http-equiv=\"Content-Type\">"
      "<a href=\"/\xA4\xA4\xA4\xE5.html\"></a><a href=\"/s?q=\xA5\x78\xA5\x5F\"></a>",
      "text/html");
  EXPECT_EQ(page.encoding, Encoding::kBig5);
  EXPECT_EQ(page.urls, (Urls{"http://h/%E4%B8%AD%E6%96%87.html", "http://h/s?q=%A5x%A5_"}));
}

TEST(LinksEncoding, ShiftJisPage) {
  // /日本.html and /s?q=東京ソ; ソ's second byte is '\', which a query keeps as it is.
  Page page = crawl("<a href=\"/\x93\xFA\x96\x7B.html\"></a><a href=\"/s?q=\x93\x8C\x8B\x9E\x83\x5C\"></a>",
                    "text/html; charset=Shift_JIS");
  EXPECT_EQ(page.encoding, Encoding::kShiftJis);
  EXPECT_EQ(page.urls, (Urls{"http://h/%E6%97%A5%E6%9C%AC.html", "http://h/s?q=%93%8C%8B%9E%83\\"}));
}

TEST(LinksEncoding, EucKrPage) {
  // /한국.html and /s?q=서울.
  Page page = crawl("<meta charset=euc-kr><a href=\"/\xC7\xD1\xB1\xB9.html\"></a><a href=\"/s?q=\xBC\xAD\xBF\xEF\">",
                    "text/html");
  EXPECT_EQ(page.encoding, Encoding::kEucKr);
  EXPECT_EQ(page.urls, (Urls{"http://h/%ED%95%9C%EA%B5%AD.html", "http://h/s?q=%BC%AD%BF%EF"}));
}

TEST(LinksEncoding, Utf16PagesWithByteOrderMark) {
  // The query of a UTF-16 page is UTF-8 (the URL Standard's output encoding). The BOM beats
  // both the header and the meta.
  const std::u16string html = u"<meta charset=gbk><a href=\"/中文.html\"></a><a href=\"/s?q=é\"></a>";
  const Urls expected{"http://h/%E4%B8%AD%E6%96%87.html", "http://h/s?q=%C3%A9"};
  Page le = crawl(utf16_with_bom(html, false), "text/html; charset=big5");
  EXPECT_EQ(le.encoding, Encoding::kUtf16Le);
  EXPECT_EQ(le.urls, expected);
  Page be = crawl(utf16_with_bom(html, true), "text/html; charset=big5");
  EXPECT_EQ(be.encoding, Encoding::kUtf16Be);
  EXPECT_EQ(be.urls, expected);
}

TEST(LinksEncoding, CharacterReferencesAreEncodedInThePageEncoding) {
  // &eacute; is é, whatever the bytes: in an undeclared ASCII page (windows-1252) it is %E9.
  Page page = crawl("<a href=\"/s?q=&eacute;&#x4E2D;\"></a>", "text/html");
  EXPECT_EQ(page.urls, (Urls{"http://h/s?q=%E9%26%2320013%3B"}));
  page = crawl("<a href=\"/s?q=&eacute;\"></a>", "text/html; charset=utf-8");
  EXPECT_EQ(page.urls, (Urls{"http://h/s?q=%C3%A9"}));
}

TEST(LinksEncoding, Utf8PagesAreAsBefore) {
  const std::string body = "<meta charset=utf-8><a href=\"/caf\xC3\xA9?q=\xC3\xA9\"></a><a href=\"/\xFF\"></a>";
  Page page = crawl(body, "text/html");
  EXPECT_EQ(page.encoding, Encoding::kUtf8);
  EXPECT_EQ(page.urls, (Urls{"http://h/caf%C3%A9?q=%C3%A9", "http://h/%EF%BF%BD"}));
  // Undeclared, but valid UTF-8: read as UTF-8.
  page = crawl("<a href=\"/caf\xC3\xA9?q=\xC3\xA9\">", "text/html");
  EXPECT_EQ(page.encoding, Encoding::kUtf8);
  EXPECT_EQ(page.urls, (Urls{"http://h/caf%C3%A9?q=%C3%A9"}));
  // extract_links() reads UTF-8 as it always did, whatever the page declares.
  ExtractedLinks links = extract_links("<meta charset=gbk><a href=\"/\xC3\xA9\">", LinkExtractOptions{});
  EXPECT_EQ(links.encoding, Encoding::kUtf8);
  ASSERT_EQ(links.links.size(), 1u);
  EXPECT_EQ(links.links[0].href, "/\xC3\xA9");
}

TEST(LinksEncoding, ByteCapAppliesToTheUndecodedPage) {
  LinkExtractOptions options;
  const std::string body = "<meta charset=gbk><a href=\"/\xD6\xD0\"></a><a href=\"/\xCE\xC4\"></a>";
  options.max_bytes = body.find("<a href=\"/\xCE");
  ExtractedLinks links = extract_page_links(body, "text/html", options);
  EXPECT_TRUE(links.truncated);
  ASSERT_EQ(links.links.size(), 1u);
  EXPECT_EQ(links.links[0].href, "/中");
  EXPECT_EQ(links.encoding, Encoding::kGbk);
}

}  // namespace
}  // namespace bloomcrawl
