// Idempotence over a large generated set: for every option combination, the canonical form of
// a canonical URL is itself and it parses back to itself; the href of any parsed URL re-parses
// to the same href. The generator mixes the features that interact: case, ports, dot segments,
// escapes (valid, invalid, unreserved, reserved), non-ASCII, backslashes, queries, fragments,
// IPv4/IPv6 hosts, session ids, index pages and tracking parameters.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "crawler/url/canonical.h"

namespace bloomcrawl {
namespace {

template <size_t N>
const char* pick(std::mt19937& rng, const char* const (&pool)[N]) {
  return pool[std::uniform_int_distribution<size_t>(0, N - 1)(rng)];
}

std::string generate_href(std::mt19937& rng) {
  static const char* const kSchemes[] = {"http://", "https://", "HTTP://", "http:", "",
                                         "//",      "mailto:",  "ftp://",  "sc://"};
  static const char* const kUserinfo[] = {"", "", "", "u:p@", "@", "a%40b@"};
  static const char* const kHosts[] = {"example.com",   "Example.COM", "m\xc3\xbcnchen.de", "0x7f.1",
                                       "[::1]",         "[0:0::1:0]",  "192.168.0.1",       "xn--mnchen-3ya.de",
                                       "ex%61mple.org", "a..b",        "1.2.3.4."};
  static const char* const kPorts[] = {"", "", ":80", ":443", ":8080", ":", ":0065535"};
  static const char* const kSegments[] = {"a",
                                          "B",
                                          ".",
                                          "..",
                                          "%2e",
                                          "%2E%2e",
                                          "index.html",
                                          "Default.aspx",
                                          "%7e",
                                          "%7E%41",
                                          "%2f",
                                          "%zz",
                                          "%",
                                          "x;jsessionid=AB12",
                                          "y;PHPSESSID=1;v=2",
                                          "..;jsessionid=2",
                                          ".;sid=1",
                                          "\xc3\xa9",
                                          " s",
                                          "a^b",
                                          "{c}",
                                          "d|e",
                                          "f\\g",
                                          "%e2%82%ac",
                                          "",
                                          "q?",
                                          "h#"};
  static const char* const kParams[] = {"a=1", "b=2",     "utm_source=x", "gclid=9", "a=0",   "",
                                        "z",   "%7e=%2D", "c=%3d",        "sid=5",   "x=y=z", "'"};
  std::string href = pick(rng, kSchemes);
  href += pick(rng, kUserinfo);
  href += pick(rng, kHosts);
  href += pick(rng, kPorts);
  int segments = std::uniform_int_distribution<int>(0, 5)(rng);
  for (int i = 0; i < segments; ++i) {
    href += (rng() % 5 == 0) ? "\\" : "/";
    href += pick(rng, kSegments);
  }
  if (rng() % 2) {
    href += '?';
    int params = std::uniform_int_distribution<int>(0, 4)(rng);
    for (int i = 0; i < params; ++i) {
      if (i) href += '&';
      href += pick(rng, kParams);
    }
  }
  if (rng() % 3 == 0) href += "#frag ment";
  return href;
}

std::vector<CanonicalizeOptions> all_option_combinations() {
  std::vector<CanonicalizeOptions> combos;
  for (int bits = 0; bits < 32; ++bits) {
    CanonicalizeOptions options;
    options.sort_query = bits & 1;
    options.strip_params = bits & 2;
    options.strip_session_ids = bits & 4;
    options.lowercase_path = bits & 8;
    options.drop_index_pages = bits & 16;
    combos.push_back(options);
  }
  return combos;
}

TEST(CanonicalIdempotence, GeneratedUrlsUnderEveryOptionCombination) {
  std::mt19937 rng(20260101);
  std::optional<Url> base = parse_url("http://base.example/dir/page.html?x=1");
  ASSERT_TRUE(base);
  std::vector<CanonicalizeOptions> combos = all_option_combinations();
  size_t canonical_count = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string href = generate_href(rng);
    std::optional<Url> parsed = parse_url(href, &*base);
    if (parsed) {
      std::optional<Url> reparsed = parse_url(parsed->href());
      ASSERT_TRUE(reparsed) << href << " -> " << parsed->href();
      ASSERT_EQ(reparsed->href(), parsed->href()) << href;
    }
    for (const CanonicalizeOptions& options : {combos[i % combos.size()], combos[0]}) {
      CanonicalUrl first = canonicalize(href, &*base, options);
      if (!first.ok()) continue;
      ++canonical_count;
      CanonicalUrl second = canonicalize(first.url, nullptr, options);
      ASSERT_TRUE(second.ok()) << href << " -> " << first.url << ": " << second.error;
      ASSERT_EQ(second.url, first.url) << href;
      ASSERT_EQ(second.host, first.host) << href;
      std::optional<Url> back = parse_url(first.url);
      ASSERT_TRUE(back) << first.url;
      ASSERT_EQ(back->href(), first.url) << href;
    }
  }
  // The generator must exercise the canonical path, not only failures.
  EXPECT_GT(canonical_count, 10000u);
}

}  // namespace
}  // namespace bloomcrawl
