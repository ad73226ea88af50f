// WHATWG URL parser cases, written from the rules of https://url.spec.whatwg.org/ (one group per
// rule: whitespace, backslashes, dot segments, percent-encode sets, IPv4, IPv6, IDNA, ports,
// relative forms, opaque hosts/paths, file URLs). Each case: input, base, expected href or
// failure.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "crawler/url/url.h"

namespace bloomcrawl {
namespace {

using namespace std::literals;

struct Case {
  std::string_view input;
  std::string_view base;  // empty: no base
  const char* expected;   // nullptr: must fail
};

void check(const Case& c) {
  std::optional<Url> base;
  if (!c.base.empty()) {
    base = parse_url(c.base);
    ASSERT_TRUE(base) << "base " << c.base;
  }
  std::string error;
  std::optional<Url> url = parse_url(c.input, base ? &*base : nullptr, &error);
  if (c.expected == nullptr) {
    EXPECT_FALSE(url) << "input '" << c.input << "' base '" << c.base << "' parsed as " << url->href();
    EXPECT_FALSE(error.empty());
    return;
  }
  ASSERT_TRUE(url) << "input '" << c.input << "' base '" << c.base << "': " << error;
  EXPECT_EQ(url->href(), c.expected) << "input '" << c.input << "' base '" << c.base << "'";
  // The serialization is a fixed point of the parser.
  std::optional<Url> again = parse_url(url->href());
  ASSERT_TRUE(again) << url->href();
  EXPECT_EQ(again->href(), url->href());
}

void check_all(std::initializer_list<Case> cases) {
  for (const Case& c : cases) check(c);
}

constexpr std::string_view kBase = "http://example.org/foo/bar";
constexpr std::string_view kFileBase = "file:///tmp/mock/path";

TEST(UrlParser, WhitespaceIsTrimmedAndTabsNewlinesRemoved) {
  check_all({
      {"http://example\t.\norg", kBase, "http://example.org/"},
      {"\t   :foo.com   \n", kBase, "http://example.org/foo/:foo.com"},
      {" foo.com  ", kBase, "http://example.org/foo/foo.com"},
      {"a:\t foo.com", kBase, "a: foo.com"},
      {"http://f:\n/c", kBase, "http://f/c"},
      {"", kBase, "http://example.org/foo/bar"},
      {"  \t", kBase, "http://example.org/foo/bar"},
      {"\x01\x1f http://x/\x00\x1f "sv, "", "http://x/"},
      {"http://example.com/foo\tbar", "", "http://example.com/foobar"},
      {"http://f:21/ b ? d # e ", kBase, "http://f:21/%20b%20?%20d%20#%20e"},
      {"h\tt\nt\rp://h\to\ns\rt:9\t0\n0\r0/p\ta\nt\rh?q\tu\ne\rry#f\tr\na\rg", "", "http://host:9000/path?query#frag"},
      {"non-special:opaque  ", "", "non-special:opaque"},
  });
}

TEST(UrlParser, BackslashesActAsSlashesOnlyForSpecialSchemes) {
  check_all({
      {"\\x", kBase, "http://example.org/x"},
      {R"(\\x\hello)", kBase, "http://x/hello"},
      {":foo.com\\", kBase, "http://example.org/foo/:foo.com/"},
      {R"(http:\\www.google.com\foo)", "", "http://www.google.com/foo"},
      {R"(http://example.com\\foo\\bar)", "", "http://example.com//foo//bar"},
      {"http://foo.com/\\@", kBase, "http://foo.com//@"},
      {"sc:\\../", "", "sc:\\../"},
      {"sc://x/a\\b", "", "sc://x/a\\b"},
  });
}

TEST(UrlParser, DotSegments) {
  check_all({
      {"http://example.com/foo/../ton", "", "http://example.com/ton"},
      {"http://example.com/foo/./", "", "http://example.com/foo/"},
      {"http://example.com/foo/bar/..", "", "http://example.com/foo/"},
      {"http://example.com/foo/%2e", "", "http://example.com/foo/"},
      {"http://example.com/foo/%2e%2", "", "http://example.com/foo/%2e%2"},
      {"http://example.com/foo/%2e./%2e%2e/.%2e/%2e.bar", "", "http://example.com/%2e.bar"},
      {"http://example.com////../..", "", "http://example.com//"},
      {"http://example.com/foo/bar//../..", "", "http://example.com/foo/"},
      {"http://example.com/foo/bar//..", "", "http://example.com/foo/bar/"},
      {"http://example.com/%2E%2E/a", "", "http://example.com/a"},
      {"http://example.com/a/.%2E", "", "http://example.com/"},
      {"about:/../", "", "about:/"},
      {"non-spec:/.//", "", "non-spec:/.//"},
      {"non-spec:/..//", "", "non-spec:/.//"},
      {"non-spec:/a/..//path", "", "non-spec:/.//path"},
      {"/..//path", "non-spec:/p", "non-spec:/.//path"},
  });
}

TEST(UrlParser, PercentEncodeSets) {
  check_all({
      {"http://example.com/foo%41%7a", "", "http://example.com/foo%41%7a"},
      {"http://example.com/foo\t\xc2\x91%91", "", "http://example.com/foo%C2%91%91"},
      {"http://example.com/foo%00%51", "", "http://example.com/foo%00%51"},
      {"http://example.com/(%28:%3A%29)", "", "http://example.com/(%28:%3A%29)"},
      {"http://example.com/\xe4\xbd\xa0\xe5\xa5\xbd", "", "http://example.com/%E4%BD%A0%E5%A5%BD"},
      {"http://example.com/a^b`c{d}e\"f<g>h", "", "http://example.com/a%5Eb%60c%7Bd%7De%22f%3Cg%3Eh"},
      {"http://example.com/foo%", "", "http://example.com/foo%"},
      {"https://x/\0y"sv, "", "https://x/%00y"},
      {"https://x/?\0y"sv, "", "https://x/?%00y"},
      {"https://x/?#\0y"sv, "", "https://x/?#%00y"},
      {"non-special:x/?\0y#\0y"sv, "", "non-special:x/?%00y#%00y"},
      {"http://host/?'", "", "http://host/?%27"},
      {"notspecial://host/?'", "", "notspecial://host/?'"},
      {"http://example.com/?a b<>\"`\xc3\xa9", "", "http://example.com/?a%20b%3C%3E%22`%C3%A9"},
      {"http://example.com/#a b<>\"`", "", "http://example.com/#a%20b%3C%3E%22%60"},
      {"http://www.google.com/foo?bar=baz# \xc2\xbb", "", "http://www.google.com/foo?bar=baz#%20%C2%BB"},
      {"#\xce\xb2", kBase, "http://example.org/foo/bar#%CE%B2"},
  });
}

TEST(UrlParser, Userinfo) {
  check_all({
      {"http://user:pass@foo:21/bar;par?b#c", kBase, "http://user:pass@foo:21/bar;par?b#c"},
      {"https://test:@test", "", "https://test@test/"},
      {"https://:@test", "", "https://test/"},
      {"non-special://test:@test/x", "", "non-special://test@test/x"},
      {"http://&a:foo(b]c@d:2/", kBase, "http://&a:foo(b%5Dc@d:2/"},
      {"http://::@c@d:2", kBase, "http://:%3A%40c@d:2/"},
      {"http://foo.com:b@d/", kBase, "http://foo.com:b@d/"},
      {"http://us er:pa ss@host/", "", "http://us%20er:pa%20ss@host/"},
      {"http://%25DOMAIN:foobar@foodomain.com/", "", "http://%25DOMAIN:foobar@foodomain.com/"},
      {"http://user:pass@/", "", nullptr},
      {"http://user@/www.example.com", "", nullptr},
      {"/some/path", "http://user@example.org/smth", "http://user@example.org/some/path"},
  });
}

TEST(UrlParser, Ipv4NumberForms) {
  check_all({
      {"http://0x7f.1/", "", "http://127.0.0.1/"},
      {"http://192.0x00A80001", "", "http://192.168.0.1/"},
      {"http://0xc0.0250.01", "", "http://192.168.0.1/"},
      {"http://%30%78%63%30%2e%30%32%35%30.01", "", "http://192.168.0.1/"},
      {"http://%30%78%63%30%2e%30%32%35%30.01%2e", "", "http://192.168.0.1/"},
      {"http://4294967295", "", "http://255.255.255.255/"},
      {"http://0x.0x.0", "", "http://0.0.0.0/"},
      {"http://1.2.3.4.", "", "http://1.2.3.4/"},
      {"http://017700000001", "", "http://127.0.0.1/"},
      {"http://4294967296", "", nullptr},
      {"http://192.168.0.257", "", nullptr},
      {"http://256.256.256.256", "", nullptr},
      {"http://1.2.3.4.5", "", nullptr},
      {"http://0.0.0.0x100", "", nullptr},
      {"http://foo.09", "", nullptr},
      {"http://foo.0x4", "", nullptr},
      {"http://1.2.3.09", "", nullptr},
      {"http://999999999999999999999999", "", nullptr},
      {"http://1..2", "", nullptr},
      {"http://1.2.3.4.5.", "", nullptr},
      {"http://foo.1.2.3.4x", "", "http://foo.1.2.3.4x/"},
      {"sc://0x7f.1/", "", "sc://0x7f.1/"},
  });
}

TEST(UrlParser, Ipv6ParsingAndCompression) {
  check_all({
      {"http://[1:0::]", "", "http://[1::]/"},
      {"http://[0:0:0:0:0:0:0:1]:8080/", "", "http://[::1]:8080/"},
      {"http://[::127.0.0.1]", "", "http://[::7f00:1]/"},
      {"http://[0:0:0:0:0:0:13.1.68.3]", "", "http://[::d01:4403]/"},
      {"http://[2001::1]:80", "", "http://[2001::1]/"},
      {"http://[::]", "", "http://[::]/"},
      {"http://[1:2:3:4:5:6:7::]", "", "http://[1:2:3:4:5:6:7:0]/"},
      {"http://[0:0:1:0:0:0:0:1]", "", "http://[0:0:1::1]/"},
      {"http://[1:0:0:2:0:0:3:4]", "", "http://[1::2:0:0:3:4]/"},
      {"http://[ABCD:EF01::]", "", "http://[abcd:ef01::]/"},
      {"sc://[::1]/", "", "sc://[::1]/"},
      {"http://[0:1:2:3:4:5:6:7:8]", "", nullptr},
      {"https://[0::0::0]", "", nullptr},
      {"https://[0:.0]", "", nullptr},
      {"https://[0:0:]", "", nullptr},
      {"https://[0:1:2:3:4:5:6:7.0.0.0.1]", "", nullptr},
      {"https://[0:1.00.0.0.0]", "", nullptr},
      {"https://[0:1.290.0.0.0]", "", nullptr},
      {"https://[0:1.23.23]", "", nullptr},
      {"http://[::1.2.3.]", "", nullptr},
      {"http://[::1.]", "", nullptr},
      {"http://[:1]", "", nullptr},
      {"http://[::1", "", nullptr},
      {"http://[::1]x/", "", nullptr},
      {"http://[www.google.com]/", "", nullptr},
      {"http://[1:2:3:4:5:6:7:8:]", "", nullptr},
      {"sc://[/", "", nullptr},
  });
}

TEST(UrlParser, IdnaDomainToAscii) {
  check_all({
      {"http://Example.COM/", "", "http://example.com/"},
      {"http://ex%61mple.com", "", "http://example.com/"},
      {"http://www.foo\xe3\x80\x82"
       "bar.com",
       "", "http://www.foo.bar.com/"},
      {"http://www.foo%E3%80%82bar.com", "", "http://www.foo.bar.com/"},
      {"http://\xef\xbc\xa7\xef\xbd\x8f.com", "", "http://go.com/"},
      {"http://\xe4\xbd\xa0\xe5\xa5\xbd\xe4\xbd\xa0\xe5\xa5\xbd", "", "http://xn--6qqa088eba/"},
      {"https://fa\xc3\x9f.ExAmPlE/", "", "https://xn--fa-hia.example/"},
      {"http://m\xc3\xbcnchen.de/", "", "http://xn--mnchen-3ya.de/"},
      {"http://xn--mnchen-3ya.de/", "", "http://xn--mnchen-3ya.de/"},
      {"http://XN--MNCHEN-3YA.de/", "", "http://xn--mnchen-3ya.de/"},
      {"http://a\xc2\xad"
       "b/",
       "", "http://ab/"},
      {"http://ab--c.-x-/", "", "http://ab--c.-x-/"},
      {"http://a..b/", "", "http://a..b/"},
      {"sc://fa\xc3\x9f.ExAmPlE/", "", "sc://fa%C3%9F.ExAmPlE/"},
      {"http://\xc2\xad/", "", nullptr},
      {"http://\xef\xbc\x85\xef\xbc\x94\xef\xbc\x91.com", "", nullptr},
      {"http://%ef%bc%85%ef%bc%94%ef%bc%91.com", "", nullptr},
      {"http://a.b.c.xn--pokxncvks", "", nullptr},
      {"http://10.0.0.xn--pokxncvks", "", nullptr},
      {"http://\xef\xb7\x90zyx.com", "", nullptr},
      {"http://%zz%66%a.com", "", nullptr},
      {"http://%25", "", nullptr},
      {"http://hello%00", "", nullptr},
      {"http://a<b", "", nullptr},
      {"http://a^b", "", nullptr},
      {"http://a|b", "", nullptr},
      {"http://a%7Fb", "", nullptr},
      {"http://%ff/", "", nullptr},
  });
}

TEST(UrlParser, IdnaSymbolsThatUts46AllowsButIdna2008Rejects) {
  check_all({
      {"https://%e2%98%83", "", "https://xn--n3h/"},
      {"ftp://\xe2\x98\x83.net/", "", "ftp://xn--n3h.net/"},
      {"http://\xf0\x9f\x92\xa9/", "", "http://xn--ls8h/"},
      {"http://i\xe2\x9d\xa4\xef\xb8\x8f.ws/", "", "http://xn--i-7iq.ws/"},  // variation selector ignored
      {"http://XN--N3H/", "", "http://xn--n3h/"},
      {"http://xn--i-7iq.ws/", "", "http://xn--i-7iq.ws/"},
      {"http://\xf0\x9f\x92\xa9.123/", "", nullptr},      // ends in a number
      {"http://\xe2\x98\x83\xe2\x80\x8d/", "", nullptr},  // ZWJ still fails
      {"http://xn--n3h-/", "", nullptr},
      // UTS #46 "valid" beyond the emoji blocks: General Punctuation, Latin-1 symbols.
      {"http://\xe2\x80\xa0/", "", "http://xn--lvg/"},              // U+2020 dagger
      {"http://\xe2\x80\xbd/", "", "http://xn--fwg/"},              // U+203D interrobang
      {"http://\xc2\xa9.example/", "", "http://xn--gba.example/"},  // U+00A9
      {"http://xn--lvg/", "", "http://xn--lvg/"},
      {"http://\xef\xbf\xbd/", "", nullptr},  // U+FFFD is disallowed
  });
}

TEST(UrlParser, IdnaFollowsUts46OfUnicode15Point1) {
  check_all({
      // U+1E9E now maps to U+00DF (non-transitional keeps it): "fa\u00df" is xn--fa-hia.
      {"https://FA\xe1\xba\x9e.de/x", "", "https://xn--fa-hia.de/x"},
      {"https://\xe1\xba\x9e/", "", "https://xn--zca/"},
      // V4: with CheckHyphens=false a label must not start with "xn--" once decoded.
      {"https://xn--xn--a--gua.pt/x", "", nullptr},
      {"https://xn--mnchen-3ya.xn--xn--a--gua/", "", nullptr},
      {"https://xn--a--wia.pt/x", "", "https://xn--a--wia.pt/x"},  // decodes to "a-\u00e4": fine
      // Disallowed in 15.0, mapped since: Georgian capital U+10BA -> U+2D1A ("xn--ilj"), U+2132 ->
      // U+214E. The old unmapped form, written as an A-label, stays invalid.
      {"https://\xe1\x82\xba.\xcf\x82/", "", "https://xn--ilj.xn--3xa/"},
      {"https://\xe1\x83\x85/", "", "https://xn--tlj/"},  // U+10C5, the last of the range
      {"https://xn--ynd.xn--4xa/", "", nullptr},
      // Disallowed in 15.0, ignored since: Hangul filler U+115F, U+2061, musical U+1D173.
      {"https://\xda\xb9.\xe1\xa1\xb3\xe1\x85\x9f/", "", "https://xn--skb.xn--g9e/"},
      {"https://a\xe2\x81\xa1"
       "b\xf0\x9d\x85\xb3.de/",
       "", "https://ab.de/"},
  });
}

TEST(UrlParser, IdnaLabelLengthIsNotCheckedForUrls) {
  // VerifyDnsLength=false: a 63-code-point label whose A-label has 71 octets (Punycode computed
  // independently with Python's codec), and a host of over 253 octets, are still hosts.
  const std::string label = "x0123456789012345678901234567890123456789012345678901234567890";
  std::optional<Url> url = parse_url("http://" + label + "\xe2\x80\xa0/");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->href(), "http://xn--" + label + "-uo03b/");
  url = parse_url("http://" + std::string(300, 'a') + ".\xc3\xbc/");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->href(), "http://" + std::string(300, 'a') + ".xn--tda/");
}

TEST(UrlParser, IdnaErrorsSayWhatIsWrong) {
  auto error_of = [](std::string_view input) {
    std::string error;
    EXPECT_FALSE(parse_url(input, nullptr, &error)) << input;
    return error;
  };
  EXPECT_NE(error_of("http://\xef\xbf\xbd/").find("disallowed character"), std::string::npos);
  EXPECT_NE(error_of("http://xn--\xc3\xbc/").find("Punycode"), std::string::npos);
  EXPECT_NE(error_of("http://\xe2\x98\x83\xe2\x80\x8d/").find("joiner"), std::string::npos);
}

TEST(UrlParser, IdnaHyphensAllowedWithCheckHyphensFalse) {
  check_all({
      {"http://-\xc3\xbc.de/", "", "http://xn----eha.de/"},
      {"http://\xc3\xbc-.de/", "", "http://xn----dha.de/"},
      {"http://a\xe2\x80\xa0--/", "", "http://xn--a---kp0a/"},  // with a symbol libidn2 rejects too
      {"http://-\xe2\x80\xa0/", "", "http://xn----xhn/"},
      {"http://a\xc3\xbc--b.de/", "", "http://xn--a--b-0ra.de/"},
      {"http://\xef\xbc\xa7\xef\xbd\x8f-.de/", "", "http://go-.de/"},
      {"http://-x-.de/", "", "http://-x-.de/"},
  });
}

TEST(UrlParser, ComponentsAreStoredSerialized) {
  std::optional<Url> url = parse_url("HTTP://u:p@[::1]:8080/a/./b?q#f");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->scheme, "http");
  EXPECT_EQ(url->username, "u");
  EXPECT_EQ(url->password, "p");
  EXPECT_EQ(url->host, "[::1]");
  EXPECT_TRUE(url->has_host);
  EXPECT_EQ(url->port, 8080);
  EXPECT_EQ(url->path, "/a/b");
  EXPECT_EQ(url->query, "q");
  EXPECT_EQ(url->fragment, "f");
  EXPECT_FALSE(url->opaque_path);
  EXPECT_TRUE(url->is_special());
  EXPECT_EQ(url->origin_host_port(), "[::1]:8080");

  std::optional<Url> mail = parse_url("mailto:a@b");
  ASSERT_TRUE(mail);
  EXPECT_TRUE(mail->opaque_path);
  EXPECT_FALSE(mail->has_host);
  EXPECT_FALSE(mail->query.has_value());

  std::optional<Url> file = parse_url("file:///x");
  ASSERT_TRUE(file);
  EXPECT_TRUE(file->has_host);  // empty, not null
  EXPECT_EQ(file->host, "");
  EXPECT_EQ(parse_url("http://h:80/")->port, std::nullopt);  // default port elided

  EXPECT_EQ(default_port("https"), 443);
  EXPECT_EQ(default_port("gopher"), -1);
}

TEST(UrlParser, ParseIntoReusesTheUrlAndAcceptsItselfAsBase) {
  Url url;
  ASSERT_TRUE(parse_url_into("http://a/b/c?x#y", nullptr, url));
  ASSERT_TRUE(parse_url_into("../d", &url, url));
  EXPECT_EQ(url.href(), "http://a/d");
  std::string error;
  EXPECT_FALSE(parse_url_into("http://[", nullptr, url, &error));
  EXPECT_NE(error.find("IPv6"), std::string::npos) << error;
  ASSERT_TRUE(parse_url_into("sc:x", nullptr, url));
  EXPECT_EQ(url.href(), "sc:x");
}

TEST(UrlParser, Ports) {
  check_all({
      {"http://f:/c", kBase, "http://f/c"},
      {"http://f:0/c", kBase, "http://f:0/c"},
      {"http://f:00000000000000/c", kBase, "http://f:0/c"},
      {"http://f:00000000000000000000080/c", kBase, "http://f/c"},
      {"http://foo:80/", "", "http://foo/"},
      {"https://foo:443/", "", "https://foo/"},
      {"https://foo:80/", "", "https://foo:80/"},
      {"ftp://foo:21/", "", "ftp://foo/"},
      {"ws://foo:80/", "", "ws://foo/"},
      {"wss://foo:443/", "", "wss://foo/"},
      {"httpa://foo:80/", "", "httpa://foo:80/"},
      {"http://example.com:65535/", "", "http://example.com:65535/"},
      {"http://example.com:65536/", "", nullptr},
      {"http://f:b/c", kBase, nullptr},
      {"http://f: /c", kBase, nullptr},
      {"http://f:999999/c", kBase, nullptr},
      {"non-special://f:999999/c", kBase, nullptr},
      {"http://f:4294967377/c", kBase, nullptr},
      {"http://f:18446744073709551697/c", kBase, nullptr},
      {"http://f:-80/", "", nullptr},
      {"http://example.com:8080abc/", "", nullptr},
      {"sc://:12/", "", nullptr},
  });
}

TEST(UrlParser, RelativeForms) {
  check_all({
      {"http:foo.com", kBase, "http://example.org/foo/foo.com"},
      {":", kBase, "http://example.org/foo/:"},
      {"#", kBase, "http://example.org/foo/bar#"},
      {"?", kBase, "http://example.org/foo/bar?"},
      {"/", kBase, "http://example.org/"},
      {"//host/x", kBase, "http://host/x"},
      {"?q", "http://example.org/foo/bar?old#frag", "http://example.org/foo/bar?q"},
      {"#f", "http://example.org/foo/bar?old#frag", "http://example.org/foo/bar?old#f"},
      {"..", kBase, "http://example.org/"},
      {"../../../x", kBase, "http://example.org/x"},
      {"http::@c:29", kBase, "http://example.org/foo/:@c:29"},
      {"http:/example.com/", kBase, "http://example.org/example.com/"},
      {"ftp:/example.com/", kBase, "ftp://example.com/"},
      {"ftp:example.com/", kBase, "ftp://example.com/"},
      {"madeupscheme:/example.com/", kBase, "madeupscheme:/example.com/"},
      {"mailto:/example.com/", kBase, "mailto:/example.com/"},
      {"http:example.com/", kBase, "http://example.org/foo/example.com/"},
      {"", "http://user:pass@example.org:21/smth", "http://user:pass@example.org:21/smth"},
      {"x", "", nullptr},
      {"//x", "", nullptr},
      {"http://?", "", nullptr},
      {"http://#", "", nullptr},
  });
}

TEST(UrlParser, OpaqueHostsAndPaths) {
  check_all({
      {"mailto:User@Example.COM", "", "mailto:User@Example.COM"},
      {"javascript:alert(1)", "", "javascript:alert(1)"},
      {"data:text/html,test#test", "", "data:text/html,test#test"},
      {"lolscheme:x x#x x", "", "lolscheme:x x#x%20x"},
      {"data:space ?test", "", "data:space%20?test"},
      {"data:space  #test", "", "data:space %20#test"},
      {"sc:\xc3\xa9\x01x", "", "sc:%C3%A9%01x"},
      {"foo://", kBase, "foo://"},
      {"sc://\xc3\xb1", "", "sc://%C3%B1"},
      {"#x", "sc://\xc3\xb1", "sc://%C3%B1#x"},
      {"x", "sc://\xc3\xb1", "sc://%C3%B1/x"},
      {"///", "sc://x/", "sc:///"},
      {"////x/", "sc://x/", "sc:////x/"},
      {"sc://@/", "", nullptr},
      {"sc://te@s:t@/", "", nullptr},
      {"sc://:/", "", nullptr},
      {"sc://%/", "", "sc://%/"},
      {"sc::a@example.net", "", "sc::a@example.net"},
      {"urn:ietf:rfc:2648", "", "urn:ietf:rfc:2648"},
      {"i", "sc:/pa/pa", "sc:/pa/i"},
      {"../i", "sc:/pa/pa", "sc:/i"},
      {"?i", "sc:/pa/pa", "sc:/pa/pa?i"},
      {"i", "sc://ho/pa", "sc://ho/i"},
      {"#i", "sc:sd", "sc:sd#i"},
      {"i", "sc:sd", nullptr},
      {"?i", "sc:sd", nullptr},
      {"sc://\0/"sv, "", nullptr},
      {"sc:// /", "", nullptr},
      {"sc://\\/", "", nullptr},
      {"sc://]/", "", nullptr},
  });
}

TEST(UrlParser, FileUrls) {
  check_all({
      {"file:///foo/bar.txt", "", "file:///foo/bar.txt"},
      {"file://localhost/test", "", "file:///test"},
      {"file://localhost", "", "file:///"},
      {"file://test", "", "file://test/"},
      {"file://TEST/x", "", "file://test/x"},
      {"file:test", kFileBase, "file:///tmp/mock/test"},
      {"test", kFileBase, "file:///tmp/mock/test"},
      {"//", kFileBase, "file:///"},
      {"///test", kFileBase, "file:///test"},
      {"//server/file", kFileBase, "file://server/file"},
      {R"(\\server\file)", kFileBase, "file://server/file"},
      {"/\\server/file", kFileBase, "file://server/file"},
      {"file:c:\\foo\\bar.html", kFileBase, "file:///c:/foo/bar.html"},
      {"  File:c|////foo\\bar.html", kFileBase, "file:///c:////foo/bar.html"},
      {"C|/foo/bar", kFileBase, "file:///C:/foo/bar"},
      {"/C|\\foo\\bar", kFileBase, "file:///C:/foo/bar"},
      {"//C|/foo/bar", kFileBase, "file:///C:/foo/bar"},
      {"/c:/foo/bar", "file:///c:/baz/qux", "file:///c:/foo/bar"},
      {"/foo", "file:///c:/baz/qux", "file:///c:/foo"},
      {"/c:/foo/bar", "file://host/path", "file://host/c:/foo/bar"},
      {"..", "file:///C:/", "file:///C:/"},
      {"file:///C:/../../..", "", "file:///C:/"},
      {"file:...", "http://www.example.com/test", "file:///..."},
      {"file:?q=v", "http://www.example.com/test", "file:///?q=v"},
      {"file://localhost//a//../..//foo", "", "file://///foo"},
      {"file:.//p", "", "file:////p"},
      {"//one/two", "file:///", "file://one/two"},
      {"file:///y:", "", "file:///y:"},
      {R"(\\\.\Y:)", "", nullptr},
      {"file://[1::8]/", "", "file://[1::8]/"},
      {"file://a%20b/", "", nullptr},
  });
}

}  // namespace
}  // namespace bloomcrawl
