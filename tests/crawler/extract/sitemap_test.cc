#include "crawler/extract/sitemap.h"

#include <gtest/gtest.h>

#include "tests/support/gzip.h"

namespace bloomcrawl {
namespace {

using testing::gzip;

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
  EXPECT_EQ(s.locs, (std::vector<std::string>{"https://example.com/", "https://example.com/a?x=1&y=2",
                                              "https://example.com/b</c>"}));
  EXPECT_FALSE(s.truncated);
  EXPECT_TRUE(s.error.empty());
}

TEST(Sitemap, RecognisesAnIndexWithNamespacePrefixes) {
  Sitemap s = parse_sitemap(
      "<sm:sitemapindex xmlns:sm='http://www.sitemaps.org/schemas/sitemap/0.9'>"
      "<sm:sitemap><sm:loc>https://example.com/s1.xml.gz</sm:loc></sm:sitemap></sm:sitemapindex>");
  EXPECT_TRUE(s.is_index);
  EXPECT_EQ(s.locs, std::vector<std::string>{"https://example.com/s1.xml.gz"});
}

TEST(Sitemap, InflatesGzipBodies) {
  Sitemap s = parse_sitemap(gzip(kUrlset));
  EXPECT_EQ(s.locs.size(), 3u);
}

TEST(Sitemap, CapsLocsAndBytes) {
  std::string many = "<urlset>";
  for (int i = 0; i < 100; ++i) many += "<url><loc>https://e.com/" + std::to_string(i) + "</loc></url>";
  Sitemap capped = parse_sitemap(many, 10);
  EXPECT_EQ(capped.locs.size(), 10u);
  EXPECT_TRUE(capped.truncated);
  Sitemap bomb = parse_sitemap(gzip(many + std::string(1 << 20, ' ') + "</urlset>"), 50000, 2048);
  EXPECT_TRUE(bomb.truncated) << "inflation stops at max_bytes";
  EXPECT_LT(bomb.locs.size(), 100u);
}

TEST(Sitemap, CorruptGzipIsAnErrorNotACrash) {
  std::string z = gzip(kUrlset);
  for (size_t i = 12; i < z.size(); i += 7) z[i] = char(~z[i]);
  Sitemap s = parse_sitemap(z);
  EXPECT_FALSE(s.error.empty());
}

TEST(Sitemap, JunkYieldsNothing) {
  EXPECT_TRUE(parse_sitemap("").locs.empty());
  EXPECT_TRUE(parse_sitemap("<loc").locs.empty());
  EXPECT_TRUE(parse_sitemap(std::string("\x00\xff<<>>", 6)).locs.empty());
}

}  // namespace
}  // namespace bloomcrawl
