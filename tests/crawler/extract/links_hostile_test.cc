// extract_links() on hostile input: it returns, with bounded output and honest flags.
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "crawler/extract/links.h"
#include "tests/crawler/extract/links_test_util.h"

namespace bloomcrawl {
namespace {

using links_test::repeat;

TEST(LinksHostileTest, InvalidUtf8IsReplacedNotFatal) {
  std::string page = "<a href=\"/ok\">x</a><a href=\"/bad\xFF\xFE\xC3\">y</a>\xC0\xAF<a href=\"/\xED\xA0\x80\">z</a>";
  auto got = extract_links(page, {});
  ASSERT_EQ(got.links.size(), 3u);
  EXPECT_EQ(got.links[0].href, "/ok");
  // Gumbo decodes each invalid sequence to U+FFFD, so what comes out is valid UTF-8.
  EXPECT_EQ(got.links[1].href.rfind("/bad", 0), 0u);
  EXPECT_NE(got.links[1].href.find("\xEF\xBF\xBD"), std::string::npos);
  EXPECT_FALSE(got.truncated);
}

TEST(LinksHostileTest, HundredThousandDeepNestingIsCutAndKeepsEarlierLinks) {
  std::string page = "<a href=\"/before\">b</a>" + repeat("<div>", 100000) + "<a href=\"/deep\">d</a>";
  auto got = extract_links(page, {});
  EXPECT_TRUE(got.truncated);
  ASSERT_EQ(got.links.size(), 1u);
  EXPECT_EQ(got.links[0].href, "/before");
}

TEST(LinksHostileTest, DeepInlineNestingWithLinksInside) {
  std::string page = repeat("<span><a href=\"/x\">x</a>", 100000);
  auto got = extract_links(page, {});
  EXPECT_TRUE(got.truncated);
  EXPECT_GT(got.links.size(), 100u);  // links above the cut are still found
}

TEST(LinksHostileTest, NulBytesControlCharactersAndBinaryJunk) {
  std::mt19937 rng(42);
  std::string junk(1 << 20, '\0');
  for (char& c : junk) c = static_cast<char>(rng());
  junk += "<a href=\"/after-junk\">x</a>";
  auto got = extract_links(junk, {});
  EXPECT_LE(got.links.size(), LinkExtractOptions{}.max_links);

  std::string with_nuls("<a href=\"/a\0b\">x</a>\0<a\0 href=/c>", 32);
  auto nul = extract_links(with_nuls, {});
  ASSERT_GE(nul.links.size(), 1u);
  EXPECT_EQ(nul.links[0].href,
            "/a\xEF\xBF\xBD"
            "b");  // NUL in an attribute value becomes U+FFFD
}

TEST(LinksHostileTest, DocumentOverTheByteCapIsParsedUpToTheCap) {
  LinkExtractOptions options;
  options.max_bytes = 1000;
  std::string page = repeat("<a href=\"/p\">x</a>", 200);  // 18 bytes each
  auto got = extract_links(page, options);
  EXPECT_TRUE(got.truncated);
  // 55 whole anchors fit in 1000 bytes; the 56th is cut inside its tag and is not half-parsed.
  EXPECT_EQ(got.links.size(), 55u);
  options.max_bytes = page.size();
  auto whole = extract_links(page, options);
  EXPECT_FALSE(whole.truncated);
  EXPECT_EQ(whole.links.size(), 200u);
}

TEST(LinksHostileTest, HugeAttributeAndHugeLinkCount) {
  std::string huge_href(4 << 20, 'a');
  LinkExtractOptions wide;  // the whole attribute within the byte cap
  wide.max_bytes = 8 << 20;
  auto got = extract_links("<a href=\"/" + huge_href + "\">x</a>", wide);
  ASSERT_EQ(got.links.size(), 1u);
  EXPECT_EQ(got.links[0].href.size(), huge_href.size() + 1);

  LinkExtractOptions options;
  options.max_links = 1000;
  auto many = extract_links(repeat("<a href=/>", 100000), options);
  EXPECT_EQ(many.links.size(), 1000u);
  EXPECT_TRUE(many.links_capped);
}

TEST(LinksHostileTest, UnterminatedConstructsAtEndOfInput) {
  for (std::string_view page : {"<a href=\"/x", "<a href='/x' ", "<!-- <a href=/x>", "<script><a href=/x>",
                                "<a href=/x", "<", "</", "<!", "<meta http-equiv=refresh content=\"0;url="}) {
    auto got = extract_links(page, {});
    EXPECT_TRUE(got.links.empty()) << page;
  }
}

}  // namespace
}  // namespace bloomcrawl
