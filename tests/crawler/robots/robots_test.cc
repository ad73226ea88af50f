// RobotsRules decisions. Most cases are ported from Google's reference library
// (google/robotstxt robots_test.cc), whose decisions we match exactly; the rest cover RFC 9309
// examples, reporting (line, rule), crawl-delay, sitemaps and the size cap.
#include "crawler/robots/robots.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace bloomcrawl {
namespace {

bool allowed(std::string_view robots, std::string_view agent, std::string_view url) {
  return RobotsRules::parse(robots, agent).allowed(url);
}

TEST(RobotsReference, SystemTest) {
  const std::string robots = "user-agent: FooBot\ndisallow: /\n";
  EXPECT_TRUE(allowed("", "FooBot", ""));
  EXPECT_TRUE(allowed(robots, "", ""));
  EXPECT_FALSE(allowed(robots, "FooBot", ""));  // empty URL is "/"
  EXPECT_TRUE(allowed("", "", ""));
}

TEST(RobotsReference, LineSyntax) {
  const std::string url = "http://foo.bar/x/y";
  EXPECT_FALSE(allowed("user-agent: FooBot\ndisallow: /\n", "FooBot", url));
  EXPECT_TRUE(allowed("foo: FooBot\nbar: /\n", "FooBot", url));
  EXPECT_FALSE(allowed("user-agent FooBot\ndisallow /\n", "FooBot", url));  // missing colons
}

TEST(RobotsReference, Groups) {
  const std::string robots =
      "allow: /foo/bar/\n"
      "\n"
      "user-agent: FooBot\n"
      "disallow: /\n"
      "allow: /x/\n"
      "user-agent: BarBot\n"
      "disallow: /\n"
      "allow: /y/\n"
      "\n"
      "\n"
      "allow: /w/\n"
      "user-agent: BazBot\n"
      "\n"
      "user-agent: FooBot\n"
      "allow: /z/\n"
      "disallow: /\n";
  EXPECT_TRUE(allowed(robots, "FooBot", "http://foo.bar/x/b"));
  EXPECT_TRUE(allowed(robots, "FooBot", "http://foo.bar/z/d"));
  EXPECT_FALSE(allowed(robots, "FooBot", "http://foo.bar/y/c"));
  EXPECT_TRUE(allowed(robots, "BarBot", "http://foo.bar/y/c"));
  EXPECT_TRUE(allowed(robots, "BarBot", "http://foo.bar/w/a"));
  EXPECT_FALSE(allowed(robots, "BarBot", "http://foo.bar/z/d"));
  EXPECT_TRUE(allowed(robots, "BazBot", "http://foo.bar/z/d"));
  // Rules before any user-agent line belong to no group.
  EXPECT_FALSE(allowed(robots, "FooBot", "http://foo.bar/foo/bar/"));
  EXPECT_FALSE(allowed(robots, "BarBot", "http://foo.bar/foo/bar/"));
  EXPECT_FALSE(allowed(robots, "BazBot", "http://foo.bar/foo/bar/"));
}

TEST(RobotsReference, GroupsAreNotClosedByOtherLines) {
  const std::string sitemap = "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n";
  EXPECT_FALSE(allowed(sitemap, "FooBot", "http://foo.bar/"));
  EXPECT_FALSE(allowed(sitemap, "BarBot", "http://foo.bar/"));
  const std::string unknown = "User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n";
  EXPECT_FALSE(allowed(unknown, "FooBot", "http://foo.bar/"));
  EXPECT_FALSE(allowed(unknown, "BarBot", "http://foo.bar/"));
  const std::string delay = "User-agent: FooBot\nCrawl-delay: 3\nUser-agent: *\nDisallow: /\n";
  EXPECT_FALSE(allowed(delay, "FooBot", "http://foo.bar/"));
}

TEST(RobotsReference, KeysAreCaseInsensitive) {
  for (const std::string robots :
       {"USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n", "user-agent: FooBot\nallow: /x/\ndisallow: /\n",
        "uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n"}) {
    EXPECT_TRUE(allowed(robots, "FooBot", "http://foo.bar/x/y"));
    EXPECT_FALSE(allowed(robots, "FooBot", "http://foo.bar/a/b"));
  }
}

TEST(RobotsReference, UserAgentValueIsCaseInsensitive) {
  for (const std::string robots :
       {"User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n", "User-Agent: foo bar\nAllow: /x/\nDisallow: /\n",
        "User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n"}) {
    for (const char* agent : {"Foo", "foo"}) {
      EXPECT_TRUE(allowed(robots, agent, "http://foo.bar/x/y"));
      EXPECT_FALSE(allowed(robots, agent, "http://foo.bar/a/b"));
    }
  }
}

TEST(RobotsReference, UserAgentValueCountsUpToFirstNonTokenCharacter) {
  const std::string robots = "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n";
  EXPECT_TRUE(allowed(robots, "Foo", "http://foo.bar/x/y"));
  // As the reference: our agent "Foo Bar" is compared whole, names no group, and "*" disallows.
  EXPECT_FALSE(allowed(robots, "Foo Bar", "http://foo.bar/x/y"));
  // Beyond it: a full User-Agent header whose first product has a version matches by its token.
  EXPECT_TRUE(allowed(robots, "Foo/2.1 (+http://foo.bar/bot)", "http://foo.bar/x/y"));
  EXPECT_FALSE(allowed(robots, "Foo 2.1", "http://foo.bar/x/y"));
  // A line value's token stops at the first character outside [a-zA-Z_-].
  EXPECT_FALSE(allowed("User-agent: FooBot/2.1\nDisallow: /\n", "FooBot", "/x"));
  EXPECT_FALSE(allowed("User-agent: foobot*\nDisallow: /\n", "FooBot", "/x"));
  EXPECT_FALSE(allowed("User-agent: FooBot2\nDisallow: /\n", "FooBot", "/x"));  // token is "FooBot"
}

TEST(RobotsReference, GlobalGroupIsTheFallback) {
  const std::string global = "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n";
  const std::string only_specific =
      "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n";
  const std::string url = "http://foo.bar/x/y";
  EXPECT_TRUE(allowed("", "FooBot", url));
  EXPECT_FALSE(allowed(global, "FooBot", url));
  EXPECT_TRUE(allowed(global, "BarBot", url));
  EXPECT_TRUE(allowed(only_specific, "QuxBot", url));
}

TEST(RobotsReference, StarFollowedBySpaceIsGlobal) {
  EXPECT_FALSE(allowed("User-agent: * FooBot\nDisallow: /\n", "BarBot", "/x"));
  EXPECT_TRUE(allowed("User-agent: *FooBot\nDisallow: /\n", "BarBot", "/x"));
}

// Patterns are matched from the first octet of the path, which is always '/': a pattern that
// starts with anything else (but '*') never matches.
TEST(RobotsReference, PatternsNotStartingWithSlash) {
  EXPECT_TRUE(allowed("User-agent: *\nDisallow: private\n", "x", "http://a.example/private"));
  EXPECT_FALSE(allowed("User-agent: *\nDisallow: *private\n", "x", "http://a.example/private"));
  EXPECT_FALSE(allowed("User-agent: *\nDisallow: */x\n", "x", "http://a.example/y/x"));
}

TEST(RobotsReference, ValuesAreCaseSensitive) {
  EXPECT_FALSE(allowed("user-agent: FooBot\ndisallow: /x/\n", "FooBot", "http://foo.bar/x/y"));
  EXPECT_TRUE(allowed("user-agent: FooBot\ndisallow: /X/\n", "FooBot", "http://foo.bar/x/y"));
}

TEST(RobotsReference, LongestMatchWins) {
  const std::string url = "http://foo.bar/x/page.html";
  EXPECT_FALSE(allowed("user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n", "FooBot", url));
  EXPECT_TRUE(allowed("user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n", "FooBot", url));
  EXPECT_FALSE(allowed("user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n", "FooBot", "http://foo.bar/x/"));
  EXPECT_TRUE(allowed("user-agent: FooBot\ndisallow: \nallow: \n", "FooBot", url));
  EXPECT_TRUE(allowed("user-agent: FooBot\ndisallow: /\nallow: /\n", "FooBot", url));
  EXPECT_FALSE(allowed("user-agent: FooBot\ndisallow: /x\nallow: /x/\n", "FooBot", "http://foo.bar/x"));
  EXPECT_TRUE(allowed("user-agent: FooBot\ndisallow: /x\nallow: /x/\n", "FooBot", "http://foo.bar/x/"));
  EXPECT_TRUE(allowed("user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n", "FooBot", url));
  EXPECT_FALSE(allowed("user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", "FooBot", "http://foo.bar/page.html"));
  EXPECT_TRUE(allowed("user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", "FooBot", "http://foo.bar/page"));
  EXPECT_TRUE(allowed("user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n", "FooBot", url));
  EXPECT_FALSE(
      allowed("user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n", "FooBot", "http://foo.bar/x/y.html"));
  const std::string groups = "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n";
  EXPECT_TRUE(allowed(groups, "FooBot", "http://foo.bar/x/page"));
  EXPECT_FALSE(allowed(groups, "FooBot", "http://foo.bar/y/page"));
}

// One robots.txt, one URL, the reference's decision for FooBot.
struct Case {
  std::string robots;
  std::string url;
  bool allowed;
};

void expect_decisions(const std::vector<Case>& cases) {
  for (const Case& c : cases) EXPECT_EQ(allowed(c.robots, "FooBot", c.url), c.allowed) << c.robots << " | " << c.url;
}

TEST(RobotsReference, Encoding) {
  const std::string query = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n";
  const std::string raw_utf8 = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/\xE3\x83\x84\n";
  const std::string encoded = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n";
  const std::string lower_hex = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%e3%83%84\n";
  const std::string unreserved = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n";
  expect_decisions({
      {query, "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par", true},
      {raw_utf8, "http://foo.bar/foo/bar/%E3%83%84", true},
      {raw_utf8, "http://foo.bar/foo/bar/\xE3\x83\x84", false},  // the URL is not encoded
      {encoded, "http://foo.bar/foo/bar/%E3%83%84", true},
      {encoded, "http://foo.bar/foo/bar/\xE3\x83\x84", false},
      {lower_hex, "http://foo.bar/foo/bar/%E3%83%84", true},
      {unreserved, "http://foo.bar/foo/bar/baz", false},  // escapes are never decoded
      {unreserved, "http://foo.bar/foo/bar/%62%61%7A", true},
  });
}

TEST(RobotsReference, SpecialCharacters) {
  const std::string star = "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n";
  const std::string dollar = "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n";
  const std::string comment = "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n";
  expect_decisions({
      {star, "http://foo.bar/foo/bar/quz", false},
      {star, "http://foo.bar/foo/quz", true},
      {star, "http://foo.bar/foo//quz", true},
      {star, "http://foo.bar/foo/bax/quz", true},
      {dollar, "http://foo.bar/foo/bar", false},
      {dollar, "http://foo.bar/foo/bar/qux", true},
      {dollar, "http://foo.bar/foo/bar/", true},
      {dollar, "http://foo.bar/foo/bar/baz", true},
      {comment, "http://foo.bar/foo/bar", true},
      {comment, "http://foo.bar/foo/quz", false},
  });
}

TEST(RobotsReference, IndexHtmlIsDirectory) {
  const std::string robots = "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n";
  expect_decisions({
      {robots, "http://foo.com/allowed-slash/", true},
      {robots, "http://foo.com/allowed-slash/index.htm", false},
      {robots, "http://foo.com/allowed-slash/index.html", true},
      {robots, "http://foo.com/anyother-url", false},
      {"User-Agent: *\nDisallow: /d/index.html\n", "http://foo.com/d/", true},  // only for Allow
  });
}

TEST(RobotsReference, LongLinesAreCut) {
  constexpr std::size_t kMaxLineLen = std::size_t{2083} * 8;
  const std::string allow = "allow: ";
  const std::string disallow = "disallow: ";
  {
    std::string longline = "/x/";
    const std::size_t max_length = kMaxLineLen - longline.size() - disallow.size() + 1;
    while (longline.size() < max_length) longline += "a";
    const std::string robots = "user-agent: FooBot\n" + disallow + longline + "/qux\n";
    EXPECT_TRUE(allowed(robots, "FooBot", "http://foo.bar/fux"));
    EXPECT_FALSE(allowed(robots, "FooBot", "http://foo.bar" + longline + "/fux"));
  }
  {
    std::string longline_a = "/x/";
    std::string longline_b = "/x/";
    const std::size_t max_length = kMaxLineLen - longline_a.size() - allow.size() + 1;
    while (longline_a.size() < max_length) {
      longline_a += "a";
      longline_b += "b";
    }
    const std::string robots =
        "user-agent: FooBot\ndisallow: /\n" + allow + longline_a + "/qux\n" + allow + longline_b + "/qux\n";
    EXPECT_FALSE(allowed(robots, "FooBot", "http://foo.bar/"));
    EXPECT_TRUE(allowed(robots, "FooBot", "http://foo.bar" + longline_a + "/qux"));
    EXPECT_TRUE(allowed(robots, "FooBot", "http://foo.bar" + longline_b + "/fux"));
  }
}

TEST(RobotsReference, DocumentationPathValues) {
  const std::string fish = "user-agent: FooBot\ndisallow: /\nallow: /fish\n";
  const std::string fish_star = "user-agent: FooBot\ndisallow: /\nallow: /fish*\n";
  for (const std::string& robots : {fish, fish_star}) {
    EXPECT_FALSE(allowed(robots, "FooBot", "http://foo.bar/bar"));
    for (const char* url :
         {"http://foo.bar/fish", "http://foo.bar/fish.html", "http://foo.bar/fish/salmon.html",
          "http://foo.bar/fishheads", "http://foo.bar/fishheads/yummy.html", "http://foo.bar/fish.html?id=anything"}) {
      EXPECT_TRUE(allowed(robots, "FooBot", url)) << url;
    }
    for (const char* url : {"http://foo.bar/Fish.asp", "http://foo.bar/catfish", "http://foo.bar/?id=fish"}) {
      EXPECT_FALSE(allowed(robots, "FooBot", url)) << url;
    }
  }
  const std::string fish_slash = "user-agent: FooBot\ndisallow: /\nallow: /fish/\n";
  for (const char* url : {"http://foo.bar/fish/", "http://foo.bar/fish/salmon", "http://foo.bar/fish/?salmon",
                          "http://foo.bar/fish/salmon.html", "http://foo.bar/fish/?id=anything"}) {
    EXPECT_TRUE(allowed(fish_slash, "FooBot", url)) << url;
  }
  for (const char* url :
       {"http://foo.bar/bar", "http://foo.bar/fish", "http://foo.bar/fish.html", "http://foo.bar/Fish/Salmon.html"}) {
    EXPECT_FALSE(allowed(fish_slash, "FooBot", url)) << url;
  }
  const std::string php = "user-agent: FooBot\ndisallow: /\nallow: /*.php\n";
  for (const char* url : {"http://foo.bar/filename.php", "http://foo.bar/folder/filename.php",
                          "http://foo.bar/folder/filename.php?parameters", "http://foo.bar//folder/any.php.file.html",
                          "http://foo.bar/filename.php/", "http://foo.bar/index?f=filename.php/"}) {
    EXPECT_TRUE(allowed(php, "FooBot", url)) << url;
  }
  for (const char* url :
       {"http://foo.bar/bar", "http://foo.bar/php/", "http://foo.bar/index?php", "http://foo.bar/windows.PHP"}) {
    EXPECT_FALSE(allowed(php, "FooBot", url)) << url;
  }
  const std::string php_end = "user-agent: FooBot\ndisallow: /\nallow: /*.php$\n";
  for (const char* url : {"http://foo.bar/filename.php", "http://foo.bar/folder/filename.php"}) {
    EXPECT_TRUE(allowed(php_end, "FooBot", url)) << url;
  }
  for (const char* url : {"http://foo.bar/bar", "http://foo.bar/filename.php?parameters",
                          "http://foo.bar/filename.php/", "http://foo.bar/filename.php5", "http://foo.bar/php/",
                          "http://foo.bar/filename?php", "http://foo.bar/aaaphpaaa", "http://foo.bar//windows.PHP"}) {
    EXPECT_FALSE(allowed(php_end, "FooBot", url)) << url;
  }
  const std::string fish_php = "user-agent: FooBot\ndisallow: /\nallow: /fish*.php\n";
  EXPECT_FALSE(allowed(fish_php, "FooBot", "http://foo.bar/bar"));
  EXPECT_TRUE(allowed(fish_php, "FooBot", "http://foo.bar/fish.php"));
  EXPECT_TRUE(allowed(fish_php, "FooBot", "http://foo.bar/fishheads/catfish.php?parameters"));
  EXPECT_FALSE(allowed(fish_php, "FooBot", "http://foo.bar/Fish.PHP"));
}

TEST(RobotsReference, DocumentationOrderOfPrecedence) {
  EXPECT_TRUE(allowed("user-agent: FooBot\nallow: /p\ndisallow: /\n", "FooBot", "http://example.com/page"));
  EXPECT_TRUE(
      allowed("user-agent: FooBot\nallow: /folder\ndisallow: /folder\n", "FooBot", "http://example.com/folder/page"));
  EXPECT_FALSE(
      allowed("user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n", "FooBot", "http://example.com/page.htm"));
  const std::string root_only = "user-agent: FooBot\nallow: /$\ndisallow: /\n";
  EXPECT_TRUE(allowed(root_only, "FooBot", "http://example.com/"));
  EXPECT_FALSE(allowed(root_only, "FooBot", "http://example.com/page.html"));
}

TEST(RobotsReference, ByteOrderMarkAndLineEndings) {
  EXPECT_FALSE(allowed("\xEF\xBB\xBFUser-agent: FooBot\r\nDisallow: /x\r\n", "FooBot", "/x"));
  EXPECT_FALSE(allowed("User-agent: FooBot\rDisallow: /x\r", "FooBot", "/x"));
  EXPECT_TRUE(allowed("\xEF\x11\xBFUser-agent: FooBot\nDisallow: /x\n", "FooBot", "/x"));  // broken BOM
}

// RFC 9309 2.2.2 compares decoded text; the crawler's canonical URLs decode unreserved escapes
// ("/%7Ealice/" is fetched as "/~alice/"). So a Disallow matches in decoded form too, while an
// Allow stays exact as in the reference: the difference may only ever disallow more.
TEST(RobotsRfc9309, DisallowMatchesUnreservedEscapesDecoded) {
  const std::string escaped_rule = "User-agent: *\nDisallow: /%7Ealice/\n";
  EXPECT_FALSE(allowed(escaped_rule, "bloomcrawl", "http://h/~alice/home.html"));
  EXPECT_FALSE(allowed(escaped_rule, "bloomcrawl", "http://h/%7ealice/home.html"));
  EXPECT_TRUE(allowed(escaped_rule, "bloomcrawl", "http://h/~bob/home.html"));
  const std::string literal_rule = "User-agent: *\nDisallow: /~bob/\n";
  EXPECT_FALSE(allowed(literal_rule, "bloomcrawl", "http://h/%7Ebob/x"));
  EXPECT_FALSE(allowed(literal_rule, "bloomcrawl", "http://h/~bob/x"));
  // Reserved escapes stay escapes: "%2F" is not "/".
  EXPECT_TRUE(allowed("User-agent: *\nDisallow: /a%2Fb\n", "bloomcrawl", "http://h/a/b"));
  EXPECT_FALSE(allowed("User-agent: *\nDisallow: /a%2fb\n", "bloomcrawl", "http://h/a%2Fb"));
  // A decoded match ranks by its decoded length: "/~a" (3) loses to "Allow: /~ab" (4).
  const std::string ranked = "User-agent: *\nDisallow: /%7Ea\nAllow: /~ab\n";
  EXPECT_TRUE(allowed(ranked, "bloomcrawl", "http://h/~abc"));
  EXPECT_FALSE(allowed(ranked, "bloomcrawl", "http://h/~ax"));
  // An Allow is not decoded (the reference's own case, in Encoding above, still holds).
  const std::string escaped_allow = "User-agent: *\nDisallow: /\nAllow: /%7Ecarol/\n";
  EXPECT_FALSE(allowed(escaped_allow, "bloomcrawl", "http://h/~carol/x"));
  EXPECT_TRUE(allowed(escaped_allow, "bloomcrawl", "http://h/%7Ecarol/x"));
}

// RFC 9309 section 5.1 (simple example) and 2.2.1 group merging.
TEST(RobotsRfc9309, Examples) {
  const std::string robots =
      "User-Agent: *\n"
      "Disallow: *.gif$\n"
      "Disallow: /example/\n"
      "Allow: /publications/\n"
      "\n"
      "User-Agent: foobot\n"
      "Disallow:/\n"
      "Allow:/example/page.html\n"
      "Allow:/example/allowed.gif\n"
      "\n"
      "User-Agent: barbot\n"
      "User-Agent: bazbot\n"
      "Disallow: /example/page.html\n"
      "\n"
      "User-Agent: quxbot\n"
      "\n"
      "EOF\n";
  EXPECT_FALSE(allowed(robots, "foobot", "http://www.example.com/"));
  EXPECT_TRUE(allowed(robots, "foobot", "http://www.example.com/example/page.html"));
  EXPECT_TRUE(allowed(robots, "foobot", "http://www.example.com/example/allowed.gif"));
  EXPECT_FALSE(allowed(robots, "barbot", "http://www.example.com/example/page.html"));
  EXPECT_TRUE(allowed(robots, "bazbot", "http://www.example.com/example/other.html"));
  EXPECT_FALSE(allowed(robots, "bazbot", "http://www.example.com/example/page.html"));
  // quxbot's group has no rules (and "EOF" is not a directive): it allows everything.
  EXPECT_TRUE(allowed(robots, "quxbot", "http://www.example.com/example/x.gif"));
  // Others get "*": a leading '*' matches the leading '/'.
  EXPECT_FALSE(allowed(robots, "otherbot", "http://www.example.com/a.gif"));
  EXPECT_TRUE(allowed(robots, "otherbot", "http://www.example.com/a.gif?x"));
  EXPECT_FALSE(allowed(robots, "otherbot", "http://www.example.com/example/x"));
  EXPECT_TRUE(allowed(robots, "otherbot", "http://www.example.com/publications/x"));

  const std::string merged =
      "user-agent: ExampleBot\ndisallow: /foo\ndisallow: /bar\n\n"
      "user-agent: ExampleBot\ndisallow: /baz\n";
  for (const char* path : {"/foo", "/bar", "/baz"}) EXPECT_FALSE(allowed(merged, "examplebot", path)) << path;
  EXPECT_TRUE(allowed(merged, "examplebot", "/qux"));
}

TEST(RobotsDecisionReport, ReportsDecidingRuleAndLine) {
  const RobotsRules rules = RobotsRules::parse(
      "User-agent: *\n"
      "Disallow: /private\n"
      "Allow: /private/public\n"
      "Disallow: /p\n"
      "Allow: /index.html\n",
      "bloomcrawl");
  RobotsDecision d = rules.check("https://example.com/private/x?q=1#frag");
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.line, 2);
  EXPECT_EQ(d.rule, "Disallow: /private");
  d = rules.check("/private/public/a");
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.line, 3);
  EXPECT_EQ(d.rule, "Allow: /private/public");
  d = rules.check("/elsewhere");
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.line, 0);
  EXPECT_EQ(d.rule, "");
  d = rules.check("/");  // via the index.html equivalence
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.line, 5);
  EXPECT_EQ(d.rule, "Allow: /index.html");
  // Reported as written, before normalization.
  d = RobotsRules::parse("User-agent: *\nDisallow: /caf\xC3\xA9\n", "x").check("/caf%C3%A9");
  EXPECT_EQ(d.rule, "Disallow: /caf\xC3\xA9");
  // An empty Disallow in our group is what allows.
  d = RobotsRules::parse("User-agent: *\nDisallow: /\nUser-agent: FooBot\nDisallow:\n", "FooBot").check("/x");
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.line, 4);
  EXPECT_EQ(d.rule, "Disallow: ");
}

TEST(RobotsDecisionReport, AllowAllAndDisallowAll) {
  EXPECT_TRUE(RobotsRules::allow_all().allowed("/anything"));
  EXPECT_EQ(RobotsRules::allow_all().check("/x").line, 0);
  const RobotsDecision d = RobotsRules::disallow_all().check("/anything");
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.line, 0);
  EXPECT_FALSE(d.rule.empty());
  EXPECT_FALSE(RobotsRules::disallow_all().allowed("/"));
}

TEST(RobotsCrawlDelay, TakenFromOurGroupElseGlobal) {
  const std::string robots =
      "User-agent: *\nCrawl-delay: 10\nDisallow: /x\n"
      "User-agent: FooBot\nCrawl-delay: 0.5\nCrawl-delay: 7\nDisallow: /y\n";
  EXPECT_EQ(RobotsRules::parse(robots, "FooBot").crawl_delay_seconds(), 0.5);
  EXPECT_EQ(RobotsRules::parse(robots, "BarBot").crawl_delay_seconds(), 10.0);
  // Our group without a delay does not inherit the global one.
  EXPECT_EQ(
      RobotsRules::parse("User-agent: *\nCrawl-delay: 4\nUser-agent: Foo\nDisallow: /\n", "Foo").crawl_delay_seconds(),
      std::nullopt);
  for (const char* bad : {"-1", "abc", "5s", "", "inf", "nan"}) {
    EXPECT_EQ(RobotsRules::parse(std::string("User-agent: *\nCrawl-delay: ") + bad + "\n", "x").crawl_delay_seconds(),
              std::nullopt)
        << bad;
  }
  EXPECT_EQ(RobotsRules::parse("User-agent: *\ncrawl-delay 3\n", "x").crawl_delay_seconds(), 3.0);
  EXPECT_EQ(RobotsRules::parse("Crawl-delay: 3\n", "x").crawl_delay_seconds(), std::nullopt);  // no group
}

TEST(RobotsSitemaps, CollectedFromAnywhereOnce) {
  const RobotsRules rules = RobotsRules::parse(
      "Sitemap: https://a.example/s1.xml\n"
      "User-agent: Other\nDisallow: /\nsitemap: https://a.example/s2.xml\n"
      "Site-map: https://a.example/s1.xml\nSitemap:\n",
      "FooBot");
  EXPECT_EQ(rules.sitemaps(), (std::vector<std::string>{"https://a.example/s1.xml", "https://a.example/s2.xml"}));
}

TEST(RobotsSizeCap, BytesBeyondTheCapAreNotParsed) {
  std::string robots = "User-agent: *\nDisallow: /early\n";
  robots += std::string(kRobotsMaxBytes - robots.size() - 1, '#') + "\n";  // exactly at the cap
  ASSERT_EQ(robots.size(), kRobotsMaxBytes);
  robots += "Disallow: /late\n";
  const RobotsRules rules = RobotsRules::parse(robots, "x");
  EXPECT_FALSE(rules.allowed("/early"));
  EXPECT_TRUE(rules.allowed("/late"));
}

TEST(RobotsAgent, FullUserAgentHeaderUsesItsProductToken) {
  const std::string robots = "User-agent: bloomcrawl\nDisallow: /mine\nUser-agent: *\nDisallow: /\n";
  const RobotsRules rules = RobotsRules::parse(robots, "bloomcrawl/0.1 (+https://example.org/bot)");
  EXPECT_TRUE(rules.has_group_for_agent());
  EXPECT_TRUE(rules.allowed("/other"));
  EXPECT_FALSE(rules.allowed("/mine"));
  // No token at all: compared as a whole, so it names no group (as in the reference).
  EXPECT_FALSE(RobotsRules::parse("User-agent: 1bot\nAllow: /\nUser-agent: *\nDisallow: /\n", "1bot").allowed("/"));
}

}  // namespace
}  // namespace bloomcrawl
