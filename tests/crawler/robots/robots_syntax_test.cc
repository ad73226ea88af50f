// The lexical layer and path extraction, checked against the cases of Google's reference
// library (google/robotstxt robots_test.cc): line counting, BOM handling, key typos, pattern
// normalization and the path part of URLs.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "crawler/robots/robots_pattern.h"
#include "crawler/robots/robots_syntax.h"

namespace bloomcrawl {
namespace {

struct Tally {
  int known = 0;    // user-agent, allow, disallow, sitemap
  int unknown = 0;  // anything else (crawl-delay counts here: the reference does not know it)
  int last_line = 0;
  std::string sitemap;
};

Tally tally(std::string_view body) {
  Tally t;
  for_each_robots_directive(body, [&](const RobotsDirective& d) {
    EXPECT_GE(d.line, t.last_line);
    t.last_line = d.line;
    if (d.key == RobotsKey::kUnknown || d.key == RobotsKey::kCrawlDelay) {
      ++t.unknown;
    } else {
      ++t.known;
    }
    if (d.key == RobotsKey::kSitemap) t.sitemap += d.value;
  });
  return t;
}

TEST(RobotsSyntax, LineEndingsAreCountedLikeTheReference) {
  for (const std::string body : {
           "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n",
           "User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n",
           "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r",
           "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /",
           "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /",
       }) {
    Tally t = tally(body);
    EXPECT_EQ(t.known, 4) << body;
    EXPECT_EQ(t.last_line, 6) << body;
  }
}

TEST(RobotsSyntax, ByteOrderMarkPrefixIsSkipped) {
  EXPECT_EQ(tally("\xEF\xBB\xBFUser-Agent: foo\nAllow: /AnyValue\n").known, 2);
  EXPECT_EQ(tally("\xEF\xBB\xBFUser-Agent: foo\nAllow: /AnyValue\n").unknown, 0);
  EXPECT_EQ(tally("\xEF\xBBUser-Agent: foo\nAllow: /AnyValue\n").known, 2);
  EXPECT_EQ(tally("\xEF"
                  "User-Agent: foo\nAllow: /AnyValue\n")
                .known,
            2);
  // A broken BOM leaves garbage in front of the first key, which becomes unknown.
  Tally broken = tally("\xEF\x11\xBFUser-Agent: foo\nAllow: /AnyValue\n");
  EXPECT_EQ(broken.known, 1);
  EXPECT_EQ(broken.unknown, 1);
  // A BOM is only skipped at the start of the file.
  Tally middle = tally(
      "User-Agent: foo\n\xEF\xBB\xBF"
      "Allow: /AnyValue\n");
  EXPECT_EQ(middle.known, 1);
  EXPECT_EQ(middle.unknown, 1);
}

TEST(RobotsSyntax, SitemapMayAppearAnywhere) {
  const std::string loc = "http://foo.bar/sitemap.xml";
  EXPECT_EQ(tally("User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nSitemap: " + loc + "\n").sitemap, loc);
  EXPECT_EQ(tally("Sitemap: " + loc + "\nUser-Agent: foo\nAllow: /some/path\n").sitemap, loc);
}

TEST(RobotsSyntax, KeyAndValueSplitting) {
  std::vector<std::pair<std::string, std::string>> seen;
  for_each_robots_directive(
      "  user-agent :  FooBot  # comment\n"
      "disallow /x\n"     // missing colon, two words: accepted
      "disallow /x /y\n"  // missing colon, three words: not a directive
      "# Disallow: /\n"   // comment only
      ": /nokey\n"        // empty key
      "justoneword\n"
      "Allow:\n"  // empty value is a directive
      "x:y:z\n",  // the first colon separates
      [&](const RobotsDirective& d) { seen.emplace_back(std::string(d.name), std::string(d.value)); });
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"user-agent", "FooBot"}, {"disallow", "/x"}, {"Allow", ""}, {"x", "y:z"}};
  EXPECT_EQ(seen, expected);
}

// The reference works on C strings: a NUL ends its line, not the file.
TEST(RobotsSyntax, NulEndsTheLineNotTheFile) {
  const std::string body("User-agent: *\nDisallow: /a\0/b\nDisallow: /c\n", 43);
  std::vector<std::pair<int, std::string>> seen;
  for_each_robots_directive(body, [&](const RobotsDirective& d) { seen.emplace_back(d.line, d.value); });
  EXPECT_EQ(seen, (std::vector<std::pair<int, std::string>>{{1, "*"}, {2, "/a"}, {3, "/c"}}));
}

TEST(RobotsSyntax, KeyTyposTheReferenceAccepts) {
  EXPECT_EQ(classify_robots_key("User-Agent"), RobotsKey::kUserAgent);
  EXPECT_EQ(classify_robots_key("useragent"), RobotsKey::kUserAgent);
  EXPECT_EQ(classify_robots_key("user agent"), RobotsKey::kUserAgent);
  EXPECT_EQ(classify_robots_key("USER-AGENTS"), RobotsKey::kUserAgent);  // prefix test
  EXPECT_EQ(classify_robots_key("user_agent"), RobotsKey::kUnknown);
  EXPECT_EQ(classify_robots_key("ALLOW"), RobotsKey::kAllow);
  EXPECT_EQ(classify_robots_key("allowed"), RobotsKey::kAllow);
  EXPECT_EQ(classify_robots_key("alow"), RobotsKey::kUnknown);
  for (const char* typo : {"disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw", "DisAlow"}) {
    EXPECT_EQ(classify_robots_key(typo), RobotsKey::kDisallow) << typo;
  }
  EXPECT_EQ(classify_robots_key("disalloww"), RobotsKey::kDisallow);
  EXPECT_EQ(classify_robots_key("dsallow"), RobotsKey::kUnknown);
  EXPECT_EQ(classify_robots_key("Sitemap"), RobotsKey::kSitemap);
  EXPECT_EQ(classify_robots_key("site-map"), RobotsKey::kSitemap);
  EXPECT_EQ(classify_robots_key("Crawl-delay"), RobotsKey::kCrawlDelay);
  EXPECT_EQ(classify_robots_key("foo"), RobotsKey::kUnknown);
}

TEST(RobotsSyntax, OverlongLinesAreCutNotDropped) {
  const std::string rule = "disallow: /" + std::string(kRobotsMaxLineBytes, 'a') + "/qux\n";
  std::string value;
  for_each_robots_directive(rule, [&](const RobotsDirective& d) { value = std::string(d.value); });
  EXPECT_EQ(value.size(), kRobotsMaxLineBytes - std::string("disallow: ").size());
  EXPECT_EQ(value.substr(0, 2), "/a");
}

TEST(RobotsSyntax, PatternNormalizationMatchesReference) {
  EXPECT_EQ(normalize_robots_pattern("http://www.example.com"), "http://www.example.com");
  EXPECT_EQ(normalize_robots_pattern("/a/b/c"), "/a/b/c");
  EXPECT_EQ(normalize_robots_pattern("\xC3\xA1"), "%C3%A1");
  EXPECT_EQ(normalize_robots_pattern("%aa"), "%AA");
  EXPECT_EQ(normalize_robots_pattern("/SanJos\xC3\xA9Sellers"), "/SanJos%C3%A9Sellers");
  EXPECT_EQ(normalize_robots_pattern("/%62%61%7a"), "/%62%61%7A");  // never decoded
  EXPECT_EQ(normalize_robots_pattern("/%zz%4"), "/%zz%4");          // not escapes: kept
  EXPECT_EQ(normalize_robots_pattern("/%a"), "/%a");
}

TEST(RobotsPattern, PathOfUrlMatchesReference) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "/"},
      {"http://www.example.com", "/"},
      {"http://www.example.com/", "/"},
      {"http://www.example.com/a", "/a"},
      {"http://www.example.com/a/", "/a/"},
      {"http://www.example.com/a/b?c=http://d.e/", "/a/b?c=http://d.e/"},
      {"http://www.example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f"},
      {"example.com", "/"},
      {"example.com/", "/"},
      {"example.com/a", "/a"},
      {"example.com/a/", "/a/"},
      {"example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f"},
      {"a", "/"},
      {"a/", "/"},
      {"/a", "/a"},
      {"a/b", "/b"},
      {"example.com?a", "/?a"},
      {"example.com/a;b#c", "/a;b"},
      {"//a/b/c", "/b/c"},
      {"http://h#frag/x", "/"},
      {"/a?b", "/a?b"},
  };
  for (const auto& [url, path] : cases) EXPECT_EQ(robots_match_path(url), path) << url;
}

bool matches(std::string_view path, std::string_view pattern) {
  std::vector<std::size_t> scratch;
  return robots_pattern_matches(path, pattern, scratch);
}

TEST(RobotsPattern, Wildcards) {
  EXPECT_TRUE(matches("/anything", ""));
  EXPECT_TRUE(matches("/fish.html", "/fish"));
  EXPECT_FALSE(matches("/Fish", "/fish"));
  EXPECT_TRUE(matches("/a/b/c.php", "/*.php"));
  EXPECT_TRUE(matches("/a.php", "/*.php$"));
  EXPECT_FALSE(matches("/a.php?x", "/*.php$"));
  EXPECT_TRUE(matches("/", "/$"));
  EXPECT_FALSE(matches("/a", "/$"));
  EXPECT_TRUE(matches("/a$b", "/a$b"));  // '$' inside a pattern is literal
  EXPECT_FALSE(matches("/ab", "/a$b"));
  EXPECT_TRUE(matches("/a$", "/a$$"));  // only the last '$' anchors
  EXPECT_TRUE(matches("/fish", "/fish*"));
  EXPECT_TRUE(matches("/x", "*"));
  EXPECT_FALSE(matches("/", "$"));
  EXPECT_TRUE(matches("/aXbYc", "/a*b*c$"));
  EXPECT_FALSE(matches("/aXbYcZ", "/a*b*c$"));
  // A pathological pattern stays polynomial.
  const std::string path = "/" + std::string(5000, 'a');
  EXPECT_FALSE(matches(path, "/*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b"));
}

}  // namespace
}  // namespace bloomcrawl
