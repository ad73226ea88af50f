// domain_group(): the registrable domain a host shares its politeness with under group_by
// "domain", from the system's Public Suffix List; "" where the host is its own group.
#include "crawler/url/domain_group.h"

#include <gtest/gtest.h>

namespace bloomcrawl {
namespace {

TEST(DomainGroup, SubdomainsShareTheirRegistrableDomain) {
  ASSERT_TRUE(public_suffix_list_loaded());
  EXPECT_EQ(domain_group("www.example.com"), "example.com");
  EXPECT_EQ(domain_group("a.b.c.example.com"), "example.com");
  EXPECT_EQ(domain_group("example.com"), "example.com");
}

TEST(DomainGroup, MultiLabelPublicSuffixesKeepOneMoreLabel) {
  EXPECT_EQ(domain_group("www.bbc.co.uk"), "bbc.co.uk");
  EXPECT_EQ(domain_group("news.bbc.co.uk"), "bbc.co.uk");
  EXPECT_NE(domain_group("bbc.co.uk"), domain_group("itv.co.uk"));
  // Wildcard and exception rules: *.kawasaki.jp with !city.kawasaki.jp.
  EXPECT_EQ(domain_group("www.shop.foo.kawasaki.jp"), "shop.foo.kawasaki.jp");
  EXPECT_EQ(domain_group("www.city.kawasaki.jp"), "city.kawasaki.jp");
}

TEST(DomainGroup, PrivateSuffixesSeparateTheirSites) {
  EXPECT_EQ(domain_group("alice.github.io"), "alice.github.io");
  EXPECT_EQ(domain_group("docs.alice.github.io"), "alice.github.io");
  EXPECT_NE(domain_group("alice.github.io"), domain_group("bob.github.io"));
}

TEST(DomainGroup, PortIsIgnored) {
  EXPECT_EQ(domain_group("www.example.com:8080"), "example.com");
  EXPECT_EQ(domain_group("api.example.com:443"), "example.com");
}

TEST(DomainGroup, HostsWithoutARegistrableDomainAreTheirOwnGroup) {
  EXPECT_EQ(domain_group("127.0.0.1"), "");
  EXPECT_EQ(domain_group("127.0.0.1:8080"), "");
  EXPECT_EQ(domain_group("10.1.2.3"), "");
  EXPECT_EQ(domain_group("[::1]"), "");
  EXPECT_EQ(domain_group("[2001:db8::1]:8080"), "");
  EXPECT_EQ(domain_group("localhost"), "");
  EXPECT_EQ(domain_group("intranet:8080"), "");
  EXPECT_EQ(domain_group("co.uk"), "");
  EXPECT_EQ(domain_group("github.io"), "");
  EXPECT_EQ(domain_group(""), "");
}

TEST(DomainGroup, UnlistedTopLevelDomainsCountAsPublicSuffixes) {
  // The PSL's default rule "*": the test web's names group under their second-level label.
  EXPECT_EQ(domain_group("s1.site.localhost:8080"), "site.localhost");
  EXPECT_EQ(domain_group("s2.site.localhost"), "site.localhost");
  EXPECT_EQ(domain_group("a.corp.internal"), "corp.internal");
}

TEST(DomainGroup, InternationalizedNamesInPunycodeAndUtf8) {
  // 例子.中国 (example.cn in Chinese): Punycode as canonical URLs spell it, and UTF-8.
  EXPECT_EQ(domain_group("www.xn--fsqu00a.xn--fiqs8s"), "xn--fsqu00a.xn--fiqs8s");
  EXPECT_EQ(domain_group("www.例子.中国"), "例子.中国");
  // 个人.hk is a two-label public suffix listed in UTF-8: its Punycode form must match it too.
  EXPECT_EQ(domain_group("a.b.xn--ciqpn.hk"), "b.xn--ciqpn.hk");
  EXPECT_EQ(domain_group("xn--ciqpn.hk"), "");
  EXPECT_EQ(domain_group("shop.xn--e1afmkfd.xn--p1ai"), "xn--e1afmkfd.xn--p1ai");  // пример.рф
}

}  // namespace
}  // namespace bloomcrawl
