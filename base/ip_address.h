// IP addresses and CIDR ranges as text: the one parser behind fetch.allowed_ranges (validated by
// config, enforced by the fetcher's AddressGuard, so both accept exactly the same set) and the
// URL parser's bracketed IPv6 hosts.
//
// The rule is strict: IPv4 is four decimal octets without leading zeros (which some resolvers
// read as octal); IPv6 is RFC 4291 text (1-4 hex digits a group, at most one "::", an optional
// dotted IPv4 tail in the last 32 bits); a prefix is a decimal without leading zeros; a range has
// no host bits set past its prefix (a likely typo, reported with the network meant). The IPv6
// parser is the WHATWG URL standard's algorithm, which accepts exactly RFC 4291 text (as glibc's
// inet_pton does); the URL standard's IPv4 number forms (0x7f.1) are URL-only and stay in
// crawler/url.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sockaddr;

namespace bloomcrawl {

// An IPv4 or IPv6 address in network order; IPv4 is held in the last 4 bytes.
struct IpAddress {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};

  // Parses a numeric address literal ("10.0.0.1", "::1"); returns false if it is not one.
  static bool parse(std::string_view text, IpAddress* out);
  // From a socket address of family AF_INET or AF_INET6; returns false for any other family.
  static bool from_sockaddr(const sockaddr* address, IpAddress* out);
  std::string to_string() const;  // dotted quad, or RFC 5952 compressed IPv6
  bool operator==(const IpAddress&) const = default;
};

// The eight 16-bit groups of IPv6 text (no brackets, no zone); on failure sets *error (if not
// null) to what is wrong and returns nullopt.
std::optional<std::array<uint16_t, 8>> parse_ipv6_groups(std::string_view text, std::string* error);

// `prefix_bits` leading bits of `base` (0..32 or 0..128 by its family).
struct CidrRange {
  IpAddress base;
  unsigned prefix_bits = 0;

  // Throwing form of parse_cidr, for ranges written in code or checked already: the
  // std::invalid_argument names `text` and the problem.
  static CidrRange parse(std::string_view text);
  bool contains(const IpAddress& address) const;  // families never match each other
  bool operator==(const CidrRange&) const = default;
};

// "a.b.c.d/n", "x::/n" or a bare address (one host). On failure returns nullopt and sets *error.
std::optional<CidrRange> parse_cidr(std::string_view text, std::string* error);

}  // namespace bloomcrawl
