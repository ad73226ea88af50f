// base/ip_address.h: the one parser behind fetch.allowed_ranges (config's validation and the SSRF
// guard) and the URL parser's bracketed IPv6. The cases are the union of the old parsers' tests
// (config/cidr, the guard's inet_pton-based parser, url_host's IPv6), with one rule for ranges.
#include "base/ip_address.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <array>
#include <stdexcept>
#include <string>

namespace bloomcrawl {
namespace {

CidrRange parsed(const std::string& text) {
  std::string error;
  std::optional<CidrRange> cidr = parse_cidr(text, &error);
  EXPECT_TRUE(cidr.has_value()) << text << ": " << error;
  return cidr.value_or(CidrRange{});
}

std::string error_of(const std::string& text) {
  std::string error;
  EXPECT_FALSE(parse_cidr(text, &error).has_value()) << text;
  return error;
}

IpAddress ip(const char* text) {
  IpAddress address;
  EXPECT_TRUE(IpAddress::parse(text, &address)) << text;
  return address;
}

IpAddress v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
  IpAddress out;
  out.bytes[12] = a, out.bytes[13] = b, out.bytes[14] = c, out.bytes[15] = d;
  return out;
}

IpAddress v6(std::array<uint8_t, 16> bytes) {
  IpAddress out;
  out.v6 = true;
  out.bytes = bytes;
  return out;
}

TEST(IpAddressTest, ParsesIpv4Networks) {
  CidrRange loopback = parsed("127.0.0.0/8");
  EXPECT_FALSE(loopback.base.v6);
  EXPECT_EQ(loopback.prefix_bits, 8u);
  EXPECT_TRUE(loopback.contains(v4(127, 9, 8, 7)));
  EXPECT_FALSE(loopback.contains(v4(128, 0, 0, 1)));
  EXPECT_EQ(parsed("10.1.2.3").prefix_bits, 32u);  // a bare address is one host
  EXPECT_EQ(parsed("0.0.0.0/0").prefix_bits, 0u);
  EXPECT_TRUE(parsed("0.0.0.0/0").contains(v4(8, 8, 8, 8)));
  EXPECT_TRUE(parsed("172.16.0.0/12").contains(v4(172, 31, 255, 255)));
  const CidrRange cgnat = CidrRange::parse("100.64.0.0/10");
  EXPECT_TRUE(cgnat.contains(ip("100.64.0.0")));
  EXPECT_TRUE(cgnat.contains(ip("100.127.255.255")));
  EXPECT_FALSE(cgnat.contains(ip("100.128.0.0")));
}

TEST(IpAddressTest, ParsesIpv6Forms) {
  CidrRange ula = parsed("fd00::/8");
  EXPECT_TRUE(ula.base.v6);
  EXPECT_TRUE(ula.contains(v6({0xfd, 0x12})));
  EXPECT_FALSE(ula.contains(v6({0xfe, 0x80})));
  std::array<uint8_t, 16> one{};
  one[15] = 1;
  EXPECT_TRUE(parsed("::1").contains(v6(one)));
  EXPECT_EQ(parsed("::1").prefix_bits, 128u);
  EXPECT_EQ(parsed("2001:DB8:0:0:0:0:0:0/32").base.bytes[1], 0x01);
  CidrRange mapped = parsed("::ffff:10.0.0.0/104");
  EXPECT_EQ(mapped.base.bytes[10], 0xff);
  EXPECT_EQ(mapped.base.bytes[12], 10);
  EXPECT_EQ(parsed("::").prefix_bits, 128u);
  EXPECT_TRUE(CidrRange::parse("::/0").contains(ip("2001:db8::1")));
}

TEST(IpAddressTest, FamiliesDoNotMatchEachOther) {
  EXPECT_FALSE(parsed("0.0.0.0/0").contains(v6({})));
  EXPECT_FALSE(parsed("::/0").contains(v4(0, 0, 0, 0)));
  EXPECT_FALSE(CidrRange::parse("100.64.0.0/10").contains(ip("::ffff:100.64.0.1")));
}

TEST(IpAddressTest, RejectsMalformedText) {
  for (const char* bad :
       {"", "10.0.0", "10.0.0.0.0", "256.0.0.0", "010.0.0.0", "1.2.3.-4", "a.b.c.d", "300.0.0.1/8", "example.com"}) {
    EXPECT_NE(error_of(bad).find("IPv4"), std::string::npos) << bad;
  }
  EXPECT_EQ(error_of("10.0.0.0/"), "prefix length must be a number from 0 to 32");
  for (const char* bad : {":::", "1::2::3", "12345::", "g::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7::8", "::1.2.3"}) {
    EXPECT_EQ(error_of(bad), "not an IPv6 address") << bad;
  }
  EXPECT_EQ(error_of("10.0.0.0/33"), "prefix length must be a number from 0 to 32");
  EXPECT_EQ(error_of("127.0.0.0/33"), "prefix length must be a number from 0 to 32");
  EXPECT_EQ(error_of("::/129"), "prefix length must be a number from 0 to 128");
  EXPECT_EQ(error_of("10.0.0.0/08"), "prefix length must be a number from 0 to 32");
  EXPECT_EQ(error_of("10.0.0.0/8x"), "prefix length must be a number from 0 to 32");
  EXPECT_EQ(error_of("10.0.0.0/-1"), "prefix length must be a number from 0 to 32");
}

TEST(IpAddressTest, HostBitsPastPrefixSuggestTheNetwork) {
  EXPECT_EQ(error_of("192.168.1.1/16"), "host bits set past the prefix; did you mean 192.168.0.0/16?");
  EXPECT_EQ(error_of("fd00::1/8"), "host bits set past the prefix; did you mean fd00:0:0:0:0:0:0:0/8?");
}

TEST(IpAddressTest, TheThrowingFormNamesTheText) {
  try {
    CidrRange::parse("10.0.0.1/8");
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "invalid address range '10.0.0.1/8': host bits set past the prefix; did you mean 10.0.0.0/8?");
  }
}

// The strict text rule is the one inet_pton applies, which the guard used before: the same
// literals parse to the same bytes, the same ones fail.
TEST(IpAddressTest, AddressesAgreeWithInetPton) {
  for (const char* text : {"0.0.0.0",
                           "255.255.255.255",
                           "192.168.0.10",
                           "1.2.3.04",
                           "1.2.3",
                           "1.2.3.4.",
                           " 1.2.3.4",
                           "::",
                           "::1",
                           "1::",
                           "fe80::1:2",
                           "::ffff:127.0.0.1",
                           "64:ff9b::192.0.2.33",
                           "1:2:3:4:5:6:7:8",
                           "1:2:3:4:5:6:1.2.3.4",
                           "1:2:3:4:5:6:7:1.2.3.4",
                           "1:2:3:4:5:6::1.2.3.4",
                           "::1.2.3.04",
                           "1:2:3:4:5:6:7::8",
                           "::1::",
                           "1:",
                           ":1",
                           "fffff::",
                           "::g",
                           "[::1]",
                           "::1%eth0"}) {
    IpAddress ours;
    const bool parsed_here = IpAddress::parse(text, &ours);
    std::array<uint8_t, 16> theirs{};
    const bool is_v6 = std::string(text).find(':') != std::string::npos;
    const bool parsed_there =
        inet_pton(is_v6 ? AF_INET6 : AF_INET, text, is_v6 ? theirs.data() : theirs.data() + 12) == 1;
    EXPECT_EQ(parsed_here, parsed_there) << text;
    if (parsed_here && parsed_there) {
      EXPECT_EQ(ours.bytes, theirs) << text;
    }
  }
}

TEST(IpAddressTest, FormatsAddresses) {
  EXPECT_EQ(ip("10.0.0.1").to_string(), "10.0.0.1");
  EXPECT_EQ(ip("2001:DB8:0:0:0:0:0:1").to_string(), "2001:db8::1");
  EXPECT_EQ(ip("::ffff:127.0.0.1").to_string(), "::ffff:127.0.0.1");
}

// The URL parser's bracketed hosts use the same parser: its groups, and errors that say IPv6.
TEST(IpAddressTest, Ipv6GroupsForUrlHosts) {
  EXPECT_EQ(parse_ipv6_groups("1:2:3:4:5:6::8", nullptr), (std::array<uint16_t, 8>{1, 2, 3, 4, 5, 6, 0, 8}));
  EXPECT_EQ(parse_ipv6_groups("::ffff:1.2.3.4", nullptr),
            (std::array<uint16_t, 8>{0, 0, 0, 0, 0, 0xffff, 0x102, 0x304}));
  EXPECT_EQ(parse_ipv6_groups("::", nullptr), (std::array<uint16_t, 8>{}));
  std::string error;
  for (const char* bad : {":1", "1:", ":::", "1::2::3", "12345::", "::1.2.3", "::1.2.3.04", "::256.0.0.1",
                          "1:2:3:4:5:6:7:1.2.3.4", "1:2:3:4:5:6:7::8", "1:2:3:4:5:6::1.2.3.4"}) {
    error.clear();
    EXPECT_FALSE(parse_ipv6_groups(bad, &error).has_value()) << bad;
    EXPECT_NE(error.find("IPv6"), std::string::npos) << bad << ": " << error;
  }
}

}  // namespace
}  // namespace bloomcrawl
