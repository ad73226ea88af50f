// X-Robots-Tag header values and meta refresh content values.
#include <gtest/gtest.h>

#include "crawler/extract/links.h"
#include "crawler/extract/links_meta_refresh.h"
#include "crawler/extract/robots_meta.h"

namespace bloomcrawl {
namespace {

struct XRobotsCase {
  const char* value;
  bool nofollow;
  bool noindex;
};

TEST(XRobotsTagTest, DirectivesForAllAndForOurAgent) {
  const XRobotsCase cases[] = {
      {"noindex", false, true},
      {"nofollow", true, false},
      {"noindex, nofollow", true, true},
      {"NoIndex,NoFollow", true, true},
      {"none", true, true},
      {"all", false, false},
      {"", false, false},
      {" , ,", false, false},
      {"noarchive, nosnippet", false, false},
      {"bloomcrawl: nofollow", true, false},
      {"BLOOMCRAWL: noindex", false, true},
      {"googlebot: noindex, nofollow", false, false},
      {"googlebot: noindex, bloomcrawl: nofollow", true, false},
      {"bloomcrawl: none, otherbot: all", true, true},
      {"noindex, googlebot: nofollow", false, true},
      {"max-snippet: 20, nofollow", true, false},
      {"unavailable_after: 25 Jun 2010 15:00:00 PST, noindex", false, true},
      {"unavailable_after: Friday, 25-Jun-10 15:00:00 PST, noindex", false, true},
      {"max-image-preview:large, noindex nofollow", true, true},
      {"nofollowing, noindexed", false, false},
  };
  for (const XRobotsCase& c : cases) {
    RobotsDirectives got = parse_x_robots_tag(c.value, "bloomcrawl");
    EXPECT_EQ(got.nofollow, c.nofollow) << c.value;
    EXPECT_EQ(got.noindex, c.noindex) << c.value;
  }
}

TEST(XRobotsTagTest, EmptyAgentMatchesNoPrefix) {
  EXPECT_FALSE(parse_x_robots_tag("bloomcrawl: noindex", "").noindex);
  EXPECT_TRUE(parse_x_robots_tag("noindex", "").noindex);
}

TEST(MetaRefreshTest, BrowserAcceptedForms) {
  const std::pair<const char*, const char*> cases[] = {
      {"5; url=http://a.example/", "http://a.example/"},
      {"5;url='x.html'", "x.html"},
      {"0;URL=\"/q\"", "/q"},
      {"  3 ,  URL = /spaced  ", "/spaced"},
      {"1 /bare", "/bare"},
      {"2; 'quoted-no-url-prefix'", "quoted-no-url-prefix"},
      {"0.5; url=/half", "/half"},
      {"3.; url=/dot", "/dot"},
      {"0; url='/unterminated", "/unterminated"},
      {"0; url='/a'b'", "/a"},
      {"0; urban.html", "urban.html"},
      {"0; url /no-equals", "url /no-equals"},
      {"0;url=", nullptr},
      {"5", nullptr},
      {"5;", nullptr},
      {"", nullptr},
      {"url=/no-time", nullptr},
      {"-1; url=/negative", nullptr},
      {".5; url=/leading-dot", "/leading-dot"},
      {"5x; url=/garbage-time", nullptr},
  };
  for (const auto& [content, want] : cases) {
    auto got = meta_refresh_url(content);
    if (want == nullptr) {
      EXPECT_FALSE(got) << content << " gave " << *got;
    } else {
      ASSERT_TRUE(got) << content;
      EXPECT_EQ(*got, want) << content;
    }
  }
}

TEST(MetaRefreshTest, InPagesOnlyWithRefreshEquiv) {
  LinkExtractOptions options;
  auto got =
      extract_links(R"(<meta http-equiv="refresh" content="0; url=/a"><meta http-equiv=" REFRESH " content="1;/b">
    <meta http-equiv="content-type" content="0; url=/not"><meta http-equiv="refresh" content="10">)",
                    options);
  ASSERT_EQ(got.links.size(), 2u);
  EXPECT_EQ(got.links[0].href, "/a");
  EXPECT_EQ(got.links[1].href, "/b");
  EXPECT_EQ(got.links[1].element, "meta");
}

}  // namespace
}  // namespace bloomcrawl
