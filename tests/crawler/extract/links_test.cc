// extract_links() on real-world-shaped pages: what comes out, of which kind, from which element.
#include "crawler/extract/links.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bloomcrawl {
namespace {

using ::testing::ElementsAre;
using ::testing::FieldsAre;

ExtractedLinks extract(std::string_view html, const LinkExtractOptions& options = {}) {
  return extract_links(html, options);
}

std::vector<std::string> hrefs(const ExtractedLinks& extracted) {
  std::vector<std::string> out;
  for (const Link& link : extracted.links) out.push_back(link.href);
  return out;
}

TEST(LinksTest, AnchorsInATableComeOutInDocumentOrder) {
  auto got = extract(R"(<!doctype html><html><head><title>Index</title></head><body>
    <table><tr><td><a href="/one">One</a></td><td><a href="two.html">Two</a></td></tr>
    <tr><td><a href="https://example.org/three?x=1#frag">Three</a></td><td>no link</td></tr>
    </table><p><a name="anchor-only">x</a><a href="//cdn.example.com/four">4</a></p></body></html>)");
  EXPECT_THAT(hrefs(got),
              ElementsAre("/one", "two.html", "https://example.org/three?x=1#frag", "//cdn.example.com/four"));
  for (const Link& link : got.links) {
    EXPECT_EQ(link.kind, LinkKind::kAnchor);
    EXPECT_EQ(link.element, "a");
    EXPECT_FALSE(link.nofollow);
  }
  EXPECT_FALSE(got.base_href);
  EXPECT_FALSE(got.truncated);
  EXPECT_FALSE(got.links_capped);
  EXPECT_FALSE(got.meta_nofollow);
  EXPECT_FALSE(got.meta_noindex);
}

TEST(LinksTest, EveryElementKindIsReportedWithItsElement) {
  auto got = extract(R"(<html><head>
    <link rel="stylesheet" href="/s.css"><link rel="alternate stylesheet" href="/alt.css">
    <link rel="alternate" hreflang="de" href="/de/"><link rel="canonical" href="https://e.com/c">
    <link rel="icon" href="/favicon.ico"><link href="/no-rel">
    <meta http-equiv="refresh" content="5; url=/refreshed">
    <script src="/app.js"></script></head>
    <body><img src="/pic.png"><map><area href="/area" alt=""></map>
    <iframe src="/frame-inline"></iframe></body></html>)");
  std::vector<std::pair<std::string, std::string>> kinds;
  for (const Link& link : got.links) kinds.emplace_back(link_kind_name(link.kind), link.element + " " + link.href);
  EXPECT_THAT(kinds, ElementsAre(FieldsAre("stylesheet", "link /s.css"), FieldsAre("stylesheet", "link /alt.css"),
                                 FieldsAre("alternate", "link /de/"), FieldsAre("canonical", "link https://e.com/c"),
                                 FieldsAre("link", "link /favicon.ico"), FieldsAre("link", "link /no-rel"),
                                 FieldsAre("meta-refresh", "meta /refreshed"), FieldsAre("area", "area /area"),
                                 FieldsAre("iframe", "iframe /frame-inline")));
}

TEST(LinksTest, FramesetFramesAreLinks) {
  auto got =
      extract(R"(<html><frameset cols="50%,50%"><frame src="left.html"><frame src="right.html"></frameset></html>)");
  ASSERT_EQ(got.links.size(), 2u);
  EXPECT_EQ(got.links[0].kind, LinkKind::kFrame);
  EXPECT_EQ(got.links[0].element, "frame");
  EXPECT_EQ(got.links[1].href, "right.html");
}

TEST(LinksTest, ImagesAndScriptsOnlyWhenAskedFor) {
  std::string_view page = R"(<script src="a.js"></script><img src="b.png"><script>var x = "<a href='no'>";</script>)";
  EXPECT_TRUE(extract(page).links.empty());
  LinkExtractOptions options;
  options.include_images = true;
  options.include_scripts = true;
  auto got = extract(page, options);
  ASSERT_EQ(got.links.size(), 2u);
  EXPECT_EQ(got.links[0].kind, LinkKind::kScript);
  EXPECT_EQ(got.links[0].href, "a.js");
  EXPECT_EQ(got.links[1].kind, LinkKind::kImage);
  EXPECT_EQ(got.links[1].element, "img");
}

TEST(LinksTest, FirstBaseWithHrefWinsWherever) {
  auto got = extract(R"(<html><head><base target="_blank"><base href="  http://a.example/dir/ ">
    <base href="http://b.example/"></head><body><a href="x">x</a><base href="http://c.example/"></body></html>)");
  ASSERT_TRUE(got.base_href);
  EXPECT_EQ(*got.base_href, "http://a.example/dir/");
  EXPECT_THAT(hrefs(got), ElementsAre("x"));  // unresolved: resolution is the caller's job
}

TEST(LinksTest, BrokenMarkupStillYieldsTheLinksABrowserSees) {
  auto got = extract(R"(<body><p><a href=/unquoted>u<a href='single'>s<div><a href="unclosed
    <li><a href="after-li">l</li><table><a href="foster">f</table><b><i><a href=mis></b></i>)");
  EXPECT_THAT(hrefs(got), ::testing::Contains("/unquoted"));
  EXPECT_THAT(hrefs(got), ::testing::Contains("single"));
  EXPECT_THAT(hrefs(got), ::testing::Contains("foster"));
  EXPECT_THAT(hrefs(got), ::testing::Contains("mis"));
  // The unterminated attribute value swallows markup up to the next quote, as in browsers.
  EXPECT_THAT(hrefs(got), ::testing::Not(::testing::Contains("after-li")));
}

TEST(LinksTest, UppercaseTagsAndAttributes) {
  auto got = extract(R"(<HTML><BODY><A HREF="/UP">x</A><LINK REL="StyleSheet" HREF="/S.CSS">
    <META HTTP-EQUIV="Refresh" CONTENT="0;URL=/NEXT"><A Href="/mixed" REL="NoFollow">m</A></BODY></HTML>)");
  ASSERT_EQ(got.links.size(), 4u);
  EXPECT_EQ(got.links[0].href, "/UP");  // values keep their case
  EXPECT_EQ(got.links[1].kind, LinkKind::kStylesheet);
  EXPECT_EQ(got.links[2].kind, LinkKind::kMetaRefresh);
  EXPECT_EQ(got.links[2].href, "/NEXT");
  EXPECT_TRUE(got.links[3].nofollow);
}

TEST(LinksTest, EntitiesInHrefsAreDecoded) {
  auto got = extract(R"(<a href="/search?q=a&amp;page=2">1</a><a href="/x?a=1&b=2&copy=3">2</a>
    <a href="/&#x41;&#66;">3</a><a href="/caf&eacute;">4</a>)");
  EXPECT_THAT(hrefs(got), ElementsAre("/search?q=a&page=2", "/x?a=1&b=2&copy=3", "/AB", "/caf\xC3\xA9"));
}

TEST(LinksTest, WhitespaceAroundHrefsIsTrimmedInsideKept) {
  auto got = extract(
      "<a href=\" \t\n/padded \r\n\">1</a><a href=\"/in side\">2</a><a href=\"\">3</a>"
      "<a href=\"   \">4</a><a href=\"\f/ff\f\">5</a>");
  EXPECT_THAT(hrefs(got), ElementsAre("/padded", "/in side", "", "", "/ff"));
}

TEST(LinksTest, NofollowIsATokenOfRelCaseInsensitive) {
  auto got = extract(R"(<a href="1" rel="nofollow">1</a><a href="2" rel="noopener NOFOLLOW noreferrer">2</a>
    <a href="3" rel="nofollowing">3</a><a href="4" rel=" external	nofollow ">4</a><a href="5" rel="ugc,nofollow">5</a>
    <a href="6">6</a><link rel="nofollow next" href="7"><area href="8" rel="nofollow">)");
  std::vector<bool> nofollow;
  for (const Link& link : got.links) nofollow.push_back(link.nofollow);
  // "ugc,nofollow" is one token: rel is space-separated, not comma-separated.
  EXPECT_THAT(nofollow, ElementsAre(true, true, false, true, false, false, true, true));
}

TEST(LinksTest, MetaRobotsForAllOrForOurAgent) {
  EXPECT_TRUE(extract(R"(<meta name="robots" content="nofollow">)").meta_nofollow);
  EXPECT_FALSE(extract(R"(<meta name="robots" content="nofollow">)").meta_noindex);
  auto none = extract(R"(<meta name="ROBOTS" content="NONE">)");
  EXPECT_TRUE(none.meta_nofollow);
  EXPECT_TRUE(none.meta_noindex);
  auto ours = extract(R"(<meta name="BloomCrawl" content="noindex, nofollow"><meta name="googlebot" content="none">)");
  EXPECT_TRUE(ours.meta_noindex);
  EXPECT_TRUE(ours.meta_nofollow);
  auto other =
      extract(R"(<meta name="googlebot" content="noindex,nofollow"><meta name="robots" content="index, follow">)");
  EXPECT_FALSE(other.meta_noindex);
  EXPECT_FALSE(other.meta_nofollow);
  LinkExtractOptions options;
  options.robots_agent = "googlebot";
  EXPECT_TRUE(extract(R"(<meta name="googlebot" content="noindex">)", options).meta_noindex);
  // Robots meta in the body counts too (search engines honour it there).
  EXPECT_TRUE(extract(R"(<body><p>x<meta name="robots" content="noindex"></p>)").meta_noindex);
}

TEST(LinksTest, LinkCapKeepsTheFirstLinks) {
  std::string page;
  for (int i = 0; i < 50; ++i) page += "<a href=\"/p" + std::to_string(i) + "\">x</a>";
  page += R"(<meta name="robots" content="nofollow">)";
  LinkExtractOptions options;
  options.max_links = 10;
  auto got = extract(page, options);
  ASSERT_EQ(got.links.size(), 10u);
  EXPECT_EQ(got.links.back().href, "/p9");
  EXPECT_TRUE(got.links_capped);
  EXPECT_EQ(got.links_over_cap, 40u);  // config/README.md fetch.max_links_per_page: "the rest are counted"
  EXPECT_TRUE(got.meta_nofollow);      // directives after the cap still count
  options.max_links = 50;
  EXPECT_FALSE(extract(page, options).links_capped);
}

TEST(LinksTest, SvgAnchorsAreLinks) {
  auto got = extract(R"(<svg><a xlink:href="/svg-old"><text>1</text></a><a href="/svg-new"/></svg>)");
  EXPECT_THAT(hrefs(got), ElementsAre("/svg-old", "/svg-new"));
}

TEST(LinksTest, TemplateContentsAreInert) {
  auto got = extract(R"(<template><a href="/hidden">h</a></template><a href="/shown">s</a>)");
  EXPECT_THAT(hrefs(got), ElementsAre("/shown"));
}

TEST(LinksTest, LinkKindNames) {
  EXPECT_STREQ(link_kind_name(LinkKind::kAnchor), "a");
  EXPECT_STREQ(link_kind_name(LinkKind::kMetaRefresh), "meta-refresh");
  EXPECT_STREQ(link_kind_name(LinkKind::kLinkOther), "link");
  EXPECT_STREQ(link_kind_name(LinkKind::kImage), "img");
  EXPECT_STREQ(link_kind_name(LinkKind::kScript), "script");
}

// Debian's Gumbo 0.10.1 asserts on this page (found by links_fuzz); the assertion must not end the
// process, and a page after it parses as usual on the same thread.
TEST(LinksTest, APageGumboAssertsOnIsAParseErrorNotAnAbort) {
  std::ifstream file(
      std::filesystem::path(BLOOMCRAWL_SOURCE_DIR) / "tests/fuzz/corpus/links_fuzz/gumbo-assert-node_qualified_tag_is",
      std::ios::binary);
  ASSERT_TRUE(file);
  std::string page((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  ExtractedLinks got = extract(page);
  EXPECT_THAT(got.parse_error, ::testing::HasSubstr("node_qualified_tag_is"));
  EXPECT_TRUE(got.links.empty());

  ExtractedLinks next = extract(R"(<p><a href="/after">after</a>)");
  EXPECT_TRUE(next.parse_error.empty());
  EXPECT_THAT(hrefs(next), ElementsAre("/after"));
}

}  // namespace
}  // namespace bloomcrawl
