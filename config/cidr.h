// CIDR blocks ("10.0.0.0/8", "fd00::/8", or a bare address meaning one host) as used by
// fetch.allowed_ranges, the SSRF guard's allow-list. Strict parsing: decimal IPv4 octets without
// leading zeros (which some resolvers read as octal), RFC 4291 IPv6 text with at most one "::" and
// an optional dotted IPv4 tail, and no host bits set past the prefix (a likely typo).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bloomcrawl {

struct Cidr {
  bool is_v6 = false;
  std::array<std::uint8_t, 16> address{};  // IPv4 uses the first 4 bytes
  int prefix_length = 0;

  // `ip` holds 4 bytes (IPv4) or 16 bytes (IPv6) in network order, per `ip_is_v6`.
  bool contains(const std::uint8_t* ip, bool ip_is_v6) const;
  bool operator==(const Cidr&) const = default;
};

// Parses `text`; on failure returns nothing and sets *error to what is wrong.
std::optional<Cidr> parse_cidr(std::string_view text, std::string* error);

}  // namespace bloomcrawl
