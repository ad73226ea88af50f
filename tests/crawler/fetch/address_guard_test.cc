// AddressGuard: every blocked range of IPv4 and IPv6, embedded IPv4 forms, and allow-lists.
#include "crawler/fetch/address_guard.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <stdexcept>

namespace bloomcrawl {
namespace {

IpAddress ip(const char* text) {
  IpAddress address;
  EXPECT_TRUE(IpAddress::parse(text, &address)) << text;
  return address;
}

struct Case {
  const char* address;
  const char* reason_part;  // expected in the reason; nullptr: the address is allowed
};

void expect_verdicts(const AddressGuard& guard, std::initializer_list<Case> cases) {
  for (const Case& c : cases) {
    const AddressVerdict verdict = guard.check(ip(c.address));
    if (c.reason_part == nullptr) {
      EXPECT_TRUE(verdict.allowed) << c.address << " blocked: " << verdict.reason;
    } else {
      EXPECT_FALSE(verdict.allowed) << c.address << " allowed";
      EXPECT_NE(verdict.reason.find(c.reason_part), std::string::npos) << c.address << ": " << verdict.reason;
    }
  }
}

TEST(AddressGuardTest, BlocksEverySpecialIpv4Range) {
  expect_verdicts(AddressGuard(), {
                                      {"0.0.0.0", "this network"},
                                      {"0.255.255.255", "this network"},
                                      {"10.0.0.1", "private"},
                                      {"10.255.255.255", "private"},
                                      {"100.64.0.1", "CGNAT"},
                                      {"100.127.255.255", "CGNAT"},
                                      {"127.0.0.1", "loopback"},
                                      {"127.255.255.254", "loopback"},
                                      {"169.254.169.254", "link-local"},  // cloud metadata endpoint
                                      {"172.16.0.1", "private"},
                                      {"172.31.255.255", "private"},
                                      {"192.0.0.8", "IETF"},
                                      {"192.0.2.1", "documentation"},
                                      {"192.88.99.1", "6to4 relay"},
                                      {"192.168.1.1", "private"},
                                      {"198.18.0.1", "benchmarking"},
                                      {"198.19.255.255", "benchmarking"},
                                      {"198.51.100.7", "documentation"},
                                      {"203.0.113.9", "documentation"},
                                      {"224.0.0.1", "multicast"},
                                      {"239.255.255.250", "multicast"},
                                      {"240.0.0.1", "reserved"},
                                      {"255.255.255.255", "reserved"},
                                  });
}

TEST(AddressGuardTest, AllowsPublicIpv4NextToBlockedRanges) {
  expect_verdicts(AddressGuard(), {
                                      {"1.1.1.1", nullptr},
                                      {"8.8.8.8", nullptr},
                                      {"9.255.255.255", nullptr},   // just below 10/8
                                      {"11.0.0.0", nullptr},        // just above 10/8
                                      {"100.63.255.255", nullptr},  // below 100.64/10
                                      {"100.128.0.0", nullptr},     // above 100.64/10
                                      {"126.255.255.255", nullptr},
                                      {"128.0.0.0", nullptr},
                                      {"172.15.255.255", nullptr},  // below 172.16/12
                                      {"172.32.0.0", nullptr},      // above 172.16/12
                                      {"192.167.255.255", nullptr},
                                      {"192.169.0.0", nullptr},
                                      {"198.17.255.255", nullptr},
                                      {"198.20.0.0", nullptr},
                                      {"223.255.255.255", nullptr},  // below multicast
                                  });
}

TEST(AddressGuardTest, BlocksEverySpecialIpv6Range) {
  expect_verdicts(AddressGuard(), {
                                      {"::", "unspecified"},
                                      {"::1", "loopback"},
                                      {"64:ff9b:1::1", "local-use NAT64"},
                                      {"100::1", "discard"},
                                      {"2001::1", "Teredo"},
                                      {"2001:db8::1", "documentation"},
                                      {"3fff::1", "documentation"},
                                      {"fc00::1", "ULA"},
                                      {"fd12:3456::1", "ULA"},
                                      {"fe80::1", "link-local"},
                                      {"febf:ffff::1", "link-local"},
                                      {"fec0::1", "site-local"},
                                      {"ff02::1", "multicast"},
                                  });
}

TEST(AddressGuardTest, AllowsPublicIpv6) {
  expect_verdicts(AddressGuard(), {
                                      {"2606:4700:4700::1111", nullptr},
                                      {"2a00:1450:4001::200e", nullptr},
                                      {"2001:4860:4860::8888", nullptr},  // outside 2001::/23
                                      {"fbff:ffff::1", nullptr},          // just below fc00::/7
                                  });
}

TEST(AddressGuardTest, JudgesIpv6FormsByTheirEmbeddedIpv4) {
  expect_verdicts(AddressGuard(), {
                                      {"::ffff:127.0.0.1", "IPv4-mapped 127.0.0.1: 127.0.0.0/8 loopback"},
                                      {"::ffff:10.1.2.3", "private"},
                                      {"::ffff:169.254.169.254", "link-local"},
                                      {"::ffff:8.8.8.8", nullptr},
                                      {"::127.0.0.1", "IPv4-compatible"},
                                      {"::8.8.8.8", nullptr},
                                      {"64:ff9b::7f00:1", "NAT64 127.0.0.1"},
                                      {"64:ff9b::808:808", nullptr},
                                      {"2002:7f00:1::1", "6to4 127.0.0.1"},
                                      {"2002:c0a8:101::1", "6to4 192.168.1.1"},
                                      {"2002:808:808::1", nullptr},
                                  });
}

TEST(AddressGuardTest, AllowListExemptsRangesIncludingMappedForms) {
  const AddressGuard guard({"127.0.0.0/8", "10.1.0.0/16", "fd00::/8", "192.168.5.5"});
  expect_verdicts(guard, {
                             {"127.0.0.1", nullptr},
                             {"127.3.4.5", nullptr},
                             {"::ffff:127.0.0.1", nullptr},
                             {"10.1.200.3", nullptr},
                             {"10.2.0.1", "private"},
                             {"fd00::5", nullptr},
                             {"fc00::5", "ULA"},
                             {"192.168.5.5", nullptr},
                             {"192.168.5.6", "private"},
                             {"::1", "loopback"},  // an IPv4 allowance does not cover IPv6 loopback
                         });
}

TEST(AddressGuardTest, RejectsMalformedRangesNamingThem) {
  for (const char* bad :
       {"127.0.0.0/33", "::/129", "300.0.0.1/8", "10.0.0.0/", "10.0.0.0/8x", "example.com", "", "10.0.0.0/-1"}) {
    try {
      AddressGuard guard({bad});
      ADD_FAILURE() << "accepted " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("'" + std::string(bad) + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(AddressGuardTest, CidrContainsRespectsPrefixBits) {
  const CidrRange range = CidrRange::parse("100.64.0.0/10");
  EXPECT_TRUE(range.contains(ip("100.64.0.0")));
  EXPECT_TRUE(range.contains(ip("100.127.255.255")));
  EXPECT_FALSE(range.contains(ip("100.128.0.0")));
  EXPECT_FALSE(range.contains(ip("::ffff:100.64.0.1")));  // families never mix in a range
  EXPECT_TRUE(CidrRange::parse("0.0.0.0/0").contains(ip("8.8.8.8")));
  EXPECT_TRUE(CidrRange::parse("::/0").contains(ip("2001:db8::1")));
}

TEST(AddressGuardTest, ReadsSocketAddresses) {
  sockaddr_in v4{};
  v4.sin_family = AF_INET;
  inet_pton(AF_INET, "192.168.0.10", &v4.sin_addr);
  IpAddress address;
  ASSERT_TRUE(IpAddress::from_sockaddr(reinterpret_cast<sockaddr*>(&v4), &address));
  EXPECT_EQ(address.to_string(), "192.168.0.10");
  EXPECT_FALSE(address.v6);

  sockaddr_in6 v6{};
  v6.sin6_family = AF_INET6;
  inet_pton(AF_INET6, "fe80::1", &v6.sin6_addr);
  ASSERT_TRUE(IpAddress::from_sockaddr(reinterpret_cast<sockaddr*>(&v6), &address));
  EXPECT_EQ(address.to_string(), "fe80::1");
  EXPECT_TRUE(address.v6);

  sockaddr unix_address{};
  unix_address.sa_family = AF_UNIX;
  EXPECT_FALSE(IpAddress::from_sockaddr(&unix_address, &address));
}

}  // namespace
}  // namespace bloomcrawl
