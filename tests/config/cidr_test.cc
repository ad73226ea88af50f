// CIDR parsing for fetch.allowed_ranges: strict syntax, and contains() on the parsed network.
#include <array>
#include <string>

#include <gtest/gtest.h>

#include "config/cidr.h"

namespace bloomcrawl {
namespace {

Cidr parsed(const std::string& text) {
  std::string error;
  std::optional<Cidr> cidr = parse_cidr(text, &error);
  EXPECT_TRUE(cidr.has_value()) << text << ": " << error;
  return cidr.value_or(Cidr{});
}

std::string error_of(const std::string& text) {
  std::string error;
  EXPECT_FALSE(parse_cidr(text, &error).has_value()) << text;
  return error;
}

TEST(ConfigCidr, ParsesIpv4Networks) {
  Cidr loopback = parsed("127.0.0.0/8");
  EXPECT_FALSE(loopback.is_v6);
  EXPECT_EQ(loopback.prefix_length, 8);
  std::array<std::uint8_t, 4> inside{127, 9, 8, 7};
  std::array<std::uint8_t, 4> outside{128, 0, 0, 1};
  EXPECT_TRUE(loopback.contains(inside.data(), false));
  EXPECT_FALSE(loopback.contains(outside.data(), false));
  EXPECT_EQ(parsed("10.1.2.3").prefix_length, 32);  // a bare address is one host
  EXPECT_EQ(parsed("0.0.0.0/0").prefix_length, 0);
  std::array<std::uint8_t, 4> any{8, 8, 8, 8};
  EXPECT_TRUE(parsed("0.0.0.0/0").contains(any.data(), false));
  std::array<std::uint8_t, 4> edge{172, 31, 255, 255};
  EXPECT_TRUE(parsed("172.16.0.0/12").contains(edge.data(), false));
}

TEST(ConfigCidr, ParsesIpv6Forms) {
  Cidr ula = parsed("fd00::/8");
  EXPECT_TRUE(ula.is_v6);
  std::array<std::uint8_t, 16> inside{0xfd, 0x12};
  std::array<std::uint8_t, 16> outside{0xfe, 0x80};
  EXPECT_TRUE(ula.contains(inside.data(), true));
  EXPECT_FALSE(ula.contains(outside.data(), true));
  std::array<std::uint8_t, 16> one{};
  one[15] = 1;
  EXPECT_TRUE(parsed("::1").contains(one.data(), true));
  EXPECT_EQ(parsed("::1").prefix_length, 128);
  EXPECT_EQ(parsed("2001:DB8:0:0:0:0:0:0/32").address[1], 0x01);
  Cidr mapped = parsed("::ffff:10.0.0.0/104");
  EXPECT_EQ(mapped.address[10], 0xff);
  EXPECT_EQ(mapped.address[12], 10);
  EXPECT_EQ(parsed("::").prefix_length, 128);
}

TEST(ConfigCidr, FamiliesDoNotMatchEachOther) {
  std::array<std::uint8_t, 16> zeros{};
  EXPECT_FALSE(parsed("0.0.0.0/0").contains(zeros.data(), true));
  EXPECT_FALSE(parsed("::/0").contains(zeros.data(), false));
}

TEST(ConfigCidr, RejectsMalformedText) {
  for (const char* bad : {"", "10.0.0", "10.0.0.0.0", "256.0.0.0", "010.0.0.0", "1.2.3.-4", "a.b.c.d"}) {
    EXPECT_NE(error_of(bad).find("IPv4"), std::string::npos) << bad;
  }
  EXPECT_EQ(error_of("10.0.0.0/"), "prefix length must be a number from 0 to 32");
  for (const char* bad : {":::", "1::2::3", "12345::", "g::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7::8", "::1.2.3"}) {
    EXPECT_EQ(error_of(bad), "not an IPv6 address") << bad;
  }
  EXPECT_EQ(error_of("10.0.0.0/33"), "prefix length must be a number from 0 to 32");
  EXPECT_EQ(error_of("::/129"), "prefix length must be a number from 0 to 128");
  EXPECT_EQ(error_of("10.0.0.0/08"), "prefix length must be a number from 0 to 32");
}

TEST(ConfigCidr, HostBitsPastPrefixSuggestTheNetwork) {
  EXPECT_EQ(error_of("192.168.1.1/16"), "host bits set past the prefix; did you mean 192.168.0.0/16?");
  EXPECT_EQ(error_of("fd00::1/8"), "host bits set past the prefix; did you mean fd00:0:0:0:0:0:0:0/8?");
}

}  // namespace
}  // namespace bloomcrawl
