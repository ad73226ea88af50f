#include "crawler/extract/sitemap.h"

#include <gtest/gtest.h>

#include "tests/support/gzip.h"

namespace bloomcrawl {
namespace {

using testing::gzip;

std::vector<std::string> locs(const Sitemap& s) {
  std::vector<std::string> out;
  for (const SitemapUrl& u : s.urls) out.push_back(u.loc);
  return out;
}

const char* kUrlset = R"(<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/</loc><lastmod>2024-01-01</lastmod></url>
  <url><loc>
      https://example.com/a?x=1&amp;y=2
  </loc></url>
  <url><LOC><![CDATA[https://example.com/b</c>]]></LOC></url>
  <url><loc/></url>
  <url><location>https://not-a-loc.example/</location></url>
</urlset>)";

TEST(Sitemap, ReadsLocsInOrderWithEntitiesCdataAndWhitespace) {
  Sitemap s = parse_sitemap(kUrlset);
  EXPECT_FALSE(s.is_index);
  EXPECT_EQ(locs(s), (std::vector<std::string>{"https://example.com/", "https://example.com/a?x=1&y=2",
                                               "https://example.com/b</c>"}));
  EXPECT_FALSE(s.truncated);
  EXPECT_TRUE(s.error.empty());
}

TEST(Sitemap, RecognisesAnIndexWithNamespacePrefixes) {
  Sitemap s = parse_sitemap(
      "<sm:sitemapindex xmlns:sm='http://www.sitemaps.org/schemas/sitemap/0.9'>"
      "<sm:sitemap><sm:loc>https://example.com/s1.xml.gz</sm:loc></sm:sitemap></sm:sitemapindex>");
  EXPECT_TRUE(s.is_index);
  EXPECT_EQ(locs(s), std::vector<std::string>{"https://example.com/s1.xml.gz"});
}

TEST(Sitemap, InflatesGzipBodies) {
  Sitemap s = parse_sitemap(gzip(kUrlset));
  EXPECT_EQ(s.urls.size(), 3u);
}

TEST(Sitemap, CapsLocsAndBytes) {
  std::string many = "<urlset>";
  for (int i = 0; i < 100; ++i) many += "<url><loc>https://e.com/" + std::to_string(i) + "</loc></url>";
  Sitemap capped = parse_sitemap(many, 10);
  EXPECT_EQ(capped.urls.size(), 10u);
  EXPECT_TRUE(capped.truncated);
  Sitemap bomb = parse_sitemap(gzip(many + std::string(1 << 20, ' ') + "</urlset>"), 50000, 2048);
  EXPECT_TRUE(bomb.truncated) << "inflation stops at max_bytes";
  EXPECT_LT(bomb.urls.size(), 100u);
}

TEST(Sitemap, CorruptGzipIsAnErrorNotACrash) {
  std::string z = gzip(kUrlset);
  for (size_t i = 12; i < z.size(); i += 7) z[i] = char(~z[i]);
  Sitemap s = parse_sitemap(z);
  EXPECT_FALSE(s.error.empty());
}

TEST(Sitemap, HandsOverEachUrlsLastmodAndChangefreq) {
  Sitemap s = parse_sitemap(R"(<urlset>
    <url><loc>https://e.com/1</loc><lastmod> 2026-12-01T10:00:00Z </lastmod><changefreq>Daily</changefreq></url>
    <url><lastmod>2026-11-30</lastmod><loc>https://e.com/2</loc></url>
    <url><loc>https://e.com/3</loc><priority>0.5</priority></url>
    <url><changefreq><![CDATA[weekly]]></changefreq><loc>https://e.com/4</loc></url>
  </urlset>)");
  EXPECT_EQ(s.urls, (std::vector<SitemapUrl>{{"https://e.com/1", "2026-12-01T10:00:00Z", "Daily"},
                                             {"https://e.com/2", "2026-11-30", ""},
                                             {"https://e.com/3", "", ""},
                                             {"https://e.com/4", "", "weekly"}}));
}

TEST(Sitemap, HintsStayWithTheirOwnLocWithoutClosingTagsAndInAnIndex) {
  const std::vector<std::pair<std::string, std::vector<SitemapUrl>>> cases = {
      // No </url>: each URL's element runs to the next <loc>, so a hint is never handed to the next URL.
      {"<urlset><url><loc>https://e.com/1</loc><lastmod>2026-01-01</lastmod>"
       "<url><loc>https://e.com/2</loc><changefreq>hourly</changefreq>",
       {{"https://e.com/1", "2026-01-01", ""}, {"https://e.com/2", "", "hourly"}}},
      // An index's <sitemap> elements carry their own <lastmod>.
      {"<sitemapindex><sitemap><loc>https://e.com/a.xml</loc><lastmod>2026-12-01</lastmod></sitemap>"
       "<sitemap><loc>https://e.com/b.xml</loc></sitemap></sitemapindex>",
       {{"https://e.com/a.xml", "2026-12-01", ""}, {"https://e.com/b.xml", "", ""}}},
  };
  for (const auto& [doc, urls] : cases) EXPECT_EQ(parse_sitemap(doc).urls, urls) << doc;
}

TEST(Sitemap, JunkYieldsNothing) {
  EXPECT_TRUE(parse_sitemap("").urls.empty());
  EXPECT_TRUE(parse_sitemap("<loc").urls.empty());
  EXPECT_TRUE(parse_sitemap(std::string("\x00\xff<<>>", 6)).urls.empty());
}

}  // namespace
}  // namespace bloomcrawl
