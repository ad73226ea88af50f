// HostAllowlist: the Host header values the status port answers (DNS rebinding).
#include "crawler/observe/host_allowlist.h"

#include <gtest/gtest.h>

namespace bloomcrawl {
namespace {

TEST(HostAllowlistTest, LoopbackAnswersItsAddressAndLocalhostOnly) {
  const HostAllowlist a("127.0.0.1", {});
  EXPECT_TRUE(a.allows("127.0.0.1:9464"));
  EXPECT_TRUE(a.allows("127.0.0.1"));
  EXPECT_TRUE(a.allows("LOCALHOST:9464"));
  EXPECT_TRUE(a.allows("localhost."));
  EXPECT_FALSE(a.allows("attacker.example:9464"));
  EXPECT_FALSE(a.allows("127.0.0.2:9464"));
  EXPECT_FALSE(a.allows("127.0.0.1:x"));
  EXPECT_FALSE(a.allows(""));
  EXPECT_FALSE(a.allows(":9464"));
}

TEST(HostAllowlistTest, Ipv6ListenAddressIsBracketedInTheHeader) {
  const HostAllowlist a("::1", {});
  EXPECT_TRUE(a.allows("[::1]:9464"));
  EXPECT_TRUE(a.allows("localhost"));
  EXPECT_FALSE(a.allows("[::1"));
  EXPECT_FALSE(a.allows("[::2]:9464"));
}

TEST(HostAllowlistTest, WildcardAnswersIpLiteralsButNoOtherName) {
  const HostAllowlist a("0.0.0.0", {});
  EXPECT_TRUE(a.allows("10.1.2.3:9464"));
  EXPECT_TRUE(a.allows("[fe80::1]:9464"));
  EXPECT_FALSE(a.allows("localhost:9464"));
  EXPECT_FALSE(a.allows("crawler.internal:9464"));
}

TEST(HostAllowlistTest, ConfiguredNamesAreAnswered) {
  const HostAllowlist a("10.0.0.5", {"Crawler.Internal", "[fd00::5]"});
  EXPECT_TRUE(a.allows("crawler.internal:9464"));
  EXPECT_TRUE(a.allows("[fd00::5]:9464"));
  EXPECT_TRUE(a.allows("10.0.0.5:9464"));
  EXPECT_FALSE(a.allows("localhost:9464"));
  EXPECT_FALSE(a.allows("evil.crawler.internal"));
}

}  // namespace
}  // namespace bloomcrawl
