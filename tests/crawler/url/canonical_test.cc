// canonicalize(): the default key rules, each option, drop reasons and the politeness host key.
#include <gtest/gtest.h>

#include <string>

#include "config/config.h"
#include "crawler/url/canonical.h"

namespace bloomcrawl {
namespace {

std::string canon(std::string_view href, const CanonicalizeOptions& options = {}) {
  CanonicalUrl result = canonicalize(href, nullptr, options);
  return result.ok() ? result.url : std::string("ERROR ") + url_drop_reason_name(result.reason);
}

TEST(Canonicalize, SameResourceGivesSameKey) {
  EXPECT_EQ(canon("http://Example.com:80/a/./b#x"), "http://example.com/a/b");
  EXPECT_EQ(canon("http://example.com/a/b"), "http://example.com/a/b");
  EXPECT_EQ(canon("HTTP://EXAMPLE.COM/a/c/../b"), "http://example.com/a/b");
  EXPECT_EQ(canon("http://example.com/%61/b"), "http://example.com/a/b");
}

TEST(Canonicalize, DropsFragmentUserinfoAndDefaultPort) {
  EXPECT_EQ(canon("http://user:pw@example.com/x#frag"), "http://example.com/x");
  EXPECT_EQ(canon("https://example.com:443/"), "https://example.com/");
  EXPECT_EQ(canon("https://example.com:80/"), "https://example.com:80/");
  EXPECT_EQ(canon("http://example.com:8080/"), "http://example.com:8080/");
}

TEST(Canonicalize, EmptyPathBecomesSlash) {
  EXPECT_EQ(canon("http://example.com"), "http://example.com/");
  EXPECT_EQ(canon("http://example.com?q=1"), "http://example.com/?q=1");
}

TEST(Canonicalize, DecodesUnreservedEscapesAndUppercasesTheRest) {
  EXPECT_EQ(canon("http://x/%7e%41%2d%5F%2E%30/%2f%3a%e2%82%ac"), "http://x/~A-_.0/%2F%3A%E2%82%AC");
  EXPECT_EQ(canon("http://x/?%7E=%2d%e2%82%ac&a=%3d"), "http://x/?~=-%E2%82%AC&a=%3D");
  // Escapes that are not escapes stay as they are.
  EXPECT_EQ(canon("http://x/100%/%zz/%4"), "http://x/100%/%zz/%4");
  // Decoding never turns a stray '%' and the decoded character into a new escape.
  EXPECT_EQ(canon("http://x/%e%32/%%32f?%a%31"), "http://x/%e%32/%%32f?%a%31");
  EXPECT_EQ(canon("http://x/%e%47"), "http://x/%eG");
}

TEST(Canonicalize, EmptyQueryIsKeptByDefault) {
  // RFC 3986 6.2.3: "http://example.com/?" cannot be assumed equivalent to ".../".
  EXPECT_EQ(canon("http://a/b?"), "http://a/b?");
  EXPECT_EQ(canon("http://a/b"), "http://a/b");
  CanonicalizeOptions sort;
  sort.sort_query = true;
  EXPECT_EQ(canon("http://a/b?", sort), "http://a/b");
}

TEST(Canonicalize, NonHttpSchemesAreDroppedAsUnsupported) {
  for (const char* href : {"mailto:a@b.c", "javascript:void(0)", "data:text/plain,x", "tel:+1555",
                           "ftp://example.com/f", "file:///etc/passwd", "ws://example.com/"}) {
    CanonicalUrl result = canonicalize(href, nullptr, {});
    EXPECT_EQ(result.reason, UrlDropReason::kUnsupportedScheme) << href;
    EXPECT_FALSE(result.ok());
    EXPECT_TRUE(result.url.empty());
    EXPECT_NE(result.error.find("scheme"), std::string::npos);
  }
}

TEST(Canonicalize, InvalidUrlsAreDroppedWithDetail) {
  for (const char* href : {"http://", "http://a b/", "http://[::1/", "relative/path", "http://example.com:99999/"}) {
    CanonicalUrl result = canonicalize(href, nullptr, {});
    EXPECT_EQ(result.reason, UrlDropReason::kInvalid) << href;
    EXPECT_FALSE(result.error.empty()) << href;
  }
}

TEST(Canonicalize, TooLongInputOrResultIsDropped) {
  CanonicalizeOptions options;
  options.max_length = 40;
  std::string long_href = "http://example.com/" + std::string(30, 'a');
  CanonicalUrl result = canonicalize(long_href, nullptr, options);
  EXPECT_EQ(result.reason, UrlDropReason::kTooLong);
  EXPECT_NE(result.error.find("49 bytes"), std::string::npos) << result.error;

  // A short relative link can still resolve to a URL over the limit.
  std::optional<Url> base = parse_url("http://example.com/" + std::string(20, 'b') + "/");
  ASSERT_TRUE(base);
  EXPECT_EQ(canonicalize("cccccccc", &*base, options).reason, UrlDropReason::kTooLong);
  EXPECT_TRUE(canonicalize("/c", &*base, options).ok());

  CanonicalizeOptions defaults;
  EXPECT_EQ(defaults.max_length, 2048u);
  EXPECT_TRUE(canonicalize("http://x/" + std::string(2039, 'a'), nullptr, defaults).ok());
  EXPECT_EQ(canonicalize("http://x/" + std::string(2040, 'a'), nullptr, defaults).reason, UrlDropReason::kTooLong);
}

TEST(Canonicalize, HostKeyHasPortOnlyWhenNonDefault) {
  EXPECT_EQ(canonicalize("http://Example.com:80/x", nullptr, {}).host, "example.com");
  EXPECT_EQ(canonicalize("http://Example.com:8080/x", nullptr, {}).host, "example.com:8080");
  EXPECT_EQ(canonicalize("https://[::1]:8443/", nullptr, {}).host, "[::1]:8443");
  EXPECT_EQ(canonicalize("http://0x7f.1/", nullptr, {}).host, "127.0.0.1");
}

TEST(Canonicalize, ReasonNames) {
  EXPECT_STREQ(url_drop_reason_name(UrlDropReason::kNone), "none");
  EXPECT_STREQ(url_drop_reason_name(UrlDropReason::kInvalid), "invalid");
  EXPECT_STREQ(url_drop_reason_name(UrlDropReason::kUnsupportedScheme), "unsupported_scheme");
  EXPECT_STREQ(url_drop_reason_name(UrlDropReason::kTooLong), "too_long");
}

TEST(CanonicalizeOptions, AllOffByDefault) {
  CanonicalizeOptions options;
  std::string href = "http://x/A/index.html;jsessionid=1?b=1&utm_source=x&a=2";
  EXPECT_EQ(canon(href, options), href);
}

TEST(CanonicalizeOptions, SortQueryIsStableByName) {
  CanonicalizeOptions options;
  options.sort_query = true;
  EXPECT_EQ(canon("http://x/?b=2&a=1&b=1&&c", options), "http://x/?a=1&b=2&b=1&c");
  EXPECT_EQ(canon("http://x/?z&y=&x=1", options), "http://x/?x=1&y=&z");
}

TEST(CanonicalizeOptions, StripDefaultTrackingParams) {
  CanonicalizeOptions options;
  options.strip_params = true;
  EXPECT_EQ(canon("http://x/?utm_source=a&id=3&gclid=b&UTM_Medium=c&fbclid=d&msclkid=e", options), "http://x/?id=3");
  EXPECT_EQ(canon("http://x/p?utm_campaign=a&_ga=1&mc_cid=2&mc_eid=3&yclid=4&dclid=5", options), "http://x/p");
  EXPECT_EQ(canon("http://x/?utmost=1&gclidx=2", options), "http://x/?utmost=1&gclidx=2");
}

// config/README.md canonicalization.strip_param_names: names match case-insensitively, a name
// ending in `*` is a prefix, and the canonicalizer's default list (`bloomcrawl url --strip-params`)
// is the crawl's.
TEST(CanonicalizeOptions, StripParamNamesReadmeRow) {
  EXPECT_EQ(CanonicalizeOptions{}.strip_param_names, CrawlConfig{}.canonicalization.strip_param_names);
  CanonicalizeOptions options;
  options.strip_params = true;
  options.strip_param_names = {"Ref", "trk_*"};
  EXPECT_EQ(canon("http://x/?REF=a&trk_A=1&trk=2", options), "http://x/?trk=2");
}

TEST(CanonicalizeOptions, StripCustomParamNamesAndPrefixes) {
  CanonicalizeOptions options;
  options.strip_params = true;
  options.strip_param_names = {"ref", "trk_*"};
  EXPECT_EQ(canon("http://x/?ref=a&trk_a=1&trk=2&utm_source=s", options), "http://x/?trk=2&utm_source=s");
}

TEST(CanonicalizeOptions, StripSessionIdsInPathsAndQueries) {
  CanonicalizeOptions options;
  options.strip_session_ids = true;
  EXPECT_EQ(canon("http://x/shop;jsessionid=ABC123/item;JSESSIONID=x?PHPSESSID=1&a=2", options),
            "http://x/shop/item?a=2");
  EXPECT_EQ(canon("http://x/a;x=1;phpsessid=2;y=3", options), "http://x/a;x=1;y=3");
  EXPECT_EQ(canon("http://x/a;ASPSESSIONIDQQGG=9", options), "http://x/a");
  EXPECT_EQ(canon("http://x/a;version=2", options), "http://x/a;version=2");
  // Removing the parameter uncovers dot segments, which are resolved like the parser does.
  EXPECT_EQ(canon("http://x/a/..;jsessionid=1/b", options), "http://x/b");
  EXPECT_EQ(canon("http://x/a/b/.;jsessionid=1", options), "http://x/a/b/");
  EXPECT_EQ(canon("http://x/a/%2e%2E;jsessionid=1", options), "http://x/");
}

TEST(CanonicalizeOptions, LowercasePathOnly) {
  CanonicalizeOptions options;
  options.lowercase_path = true;
  EXPECT_EQ(canon("http://x/A/B%2f%41?Q=V", options), "http://x/a/b%2Fa?Q=V");
}

TEST(CanonicalizeOptions, DropIndexPages) {
  CanonicalizeOptions options;
  options.drop_index_pages = true;
  EXPECT_EQ(canon("http://x/a/index.html", options), "http://x/a/");
  EXPECT_EQ(canon("http://x/Default.ASPX?x=1", options), "http://x/?x=1");
  EXPECT_EQ(canon("http://x/index.htm", options), "http://x/");
  EXPECT_EQ(canon("http://x/index.php", options), "http://x/");
  EXPECT_EQ(canon("http://x/default.asp", options), "http://x/");
  EXPECT_EQ(canon("http://x/index.html/x", options), "http://x/index.html/x");
  EXPECT_EQ(canon("http://x/myindex.html", options), "http://x/myindex.html");
}

// config/README.md, canonicalization rows: what each option does beyond its name.
TEST(CanonicalizeOptions, ReadmeRowsHold) {
  CanonicalizeOptions sort;
  sort.sort_query = true;  // "Empty parameters are dropped, and a query left empty loses its ?"
  EXPECT_EQ(canon("http://x/?b=2&&a=1&b=1", sort), "http://x/?a=1&b=2&b=1");
  EXPECT_EQ(canon("http://x/?&&", sort), "http://x/");
  CanonicalizeOptions sessions;
  sessions.strip_session_ids = true;  // path and query, any case, aspsessionid... a prefix
  EXPECT_EQ(canon("http://x/a;JSESSIONID=1/b?SID=2&ASPSESSIONIDQ=3&k=v", sessions), "http://x/a/b?k=v");
  EXPECT_EQ(canon("http://x/?phpsessid=1", sessions), "http://x/");
  CanonicalizeOptions index;
  index.drop_index_pages = true;  // the listed last segments, any case; the query stays
  EXPECT_EQ(canon("http://x/dir/Default.ASP?q=1", index), "http://x/dir/?q=1");
  EXPECT_EQ(canon("http://x/dir/index.htm", index), "http://x/dir/");
}

TEST(CanonicalizeOptions, ParsedUrlOverloadMatchesStringOverload) {
  std::optional<Url> url = parse_url("HTTP://u@X.org:80/a/../b?q#f");
  ASSERT_TRUE(url);
  EXPECT_EQ(canonicalize(*url, {}).url, canonicalize("HTTP://u@X.org:80/a/../b?q#f", nullptr, {}).url);
  EXPECT_EQ(canonicalize(*url, {}).url, "http://x.org/b?q");
}

}  // namespace
}  // namespace bloomcrawl
