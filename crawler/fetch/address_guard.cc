#include "crawler/fetch/address_guard.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <charconv>
#include <cstring>
#include <stdexcept>

namespace bloomcrawl {
namespace {

struct SpecialRange {
  const char* cidr;
  const char* name;
};

// IANA IPv4 Special-Purpose Address Registry entries that are not globally reachable, plus
// multicast and the 240/4 reserved block (which includes broadcast).
constexpr SpecialRange kBlockedV4[] = {
    {"0.0.0.0/8", "this network"},
    {"10.0.0.0/8", "private (RFC 1918)"},
    {"100.64.0.0/10", "shared address space (CGNAT)"},
    {"127.0.0.0/8", "loopback"},
    {"169.254.0.0/16", "link-local"},
    {"172.16.0.0/12", "private (RFC 1918)"},
    {"192.0.0.0/24", "IETF protocol assignments"},
    {"192.0.2.0/24", "documentation (TEST-NET-1)"},
    {"192.88.99.0/24", "6to4 relay anycast (deprecated)"},
    {"192.168.0.0/16", "private (RFC 1918)"},
    {"198.18.0.0/15", "benchmarking"},
    {"198.51.100.0/24", "documentation (TEST-NET-2)"},
    {"203.0.113.0/24", "documentation (TEST-NET-3)"},
    {"224.0.0.0/4", "multicast"},
    {"240.0.0.0/4", "reserved (incl. broadcast)"},
};

// IPv6 ranges that are not globally reachable unicast. The forms embedding an IPv4 address are
// handled before this list (see embedded_v4).
constexpr SpecialRange kBlockedV6[] = {
    {"::/128", "unspecified"},
    {"::1/128", "loopback"},
    {"64:ff9b:1::/48", "local-use NAT64"},
    {"100::/64", "discard-only"},
    {"2001::/23", "IETF protocol assignments (incl. Teredo)"},
    {"2001:db8::/32", "documentation"},
    {"3fff::/20", "documentation"},
    {"fc00::/7", "unique local (ULA)"},
    {"fe80::/10", "link-local"},
    {"fec0::/10", "site-local (deprecated)"},
    {"ff00::/8", "multicast"},
};

struct NamedRange {
  CidrRange range;
  std::string reason;
};

std::vector<NamedRange> build(const SpecialRange* begin, const SpecialRange* end) {
  std::vector<NamedRange> out;
  for (const SpecialRange* r = begin; r != end; ++r) {
    out.push_back({CidrRange::parse(r->cidr), std::string(r->cidr) + " " + r->name});
  }
  return out;
}

const std::vector<NamedRange>& blocked_v4() {
  static const std::vector<NamedRange> ranges = build(std::begin(kBlockedV4), std::end(kBlockedV4));
  return ranges;
}

const std::vector<NamedRange>& blocked_v6() {
  static const std::vector<NamedRange> ranges = build(std::begin(kBlockedV6), std::end(kBlockedV6));
  return ranges;
}

IpAddress v4_from(const uint8_t* four) {
  IpAddress out;
  std::memcpy(out.bytes.data() + 12, four, 4);
  return out;
}

// IPv6 forms that reach (or claim to reach) an IPv4 host: the IPv4 address decides. Returns the
// form's name, or nullptr if `address` is not such a form.
const char* embedded_v4(const IpAddress& address, IpAddress* v4) {
  static const CidrRange mapped = CidrRange::parse("::ffff:0:0/96");
  static const CidrRange compatible = CidrRange::parse("::/96");
  static const CidrRange nat64 = CidrRange::parse("64:ff9b::/96");
  static const CidrRange six_to_four = CidrRange::parse("2002::/16");
  if (mapped.contains(address)) {
    *v4 = v4_from(address.bytes.data() + 12);
    return "IPv4-mapped";
  }
  if (nat64.contains(address)) {
    *v4 = v4_from(address.bytes.data() + 12);
    return "NAT64";
  }
  if (six_to_four.contains(address)) {
    *v4 = v4_from(address.bytes.data() + 2);
    return "6to4";
  }
  // ::/96 also holds :: and ::1, which the plain list names better.
  const uint32_t low = (uint32_t{address.bytes[12]} << 24) | (uint32_t{address.bytes[13]} << 16) |
                       (uint32_t{address.bytes[14]} << 8) | address.bytes[15];
  if (compatible.contains(address) && low > 1) {
    *v4 = v4_from(address.bytes.data() + 12);
    return "IPv4-compatible (deprecated)";
  }
  return nullptr;
}

}  // namespace

bool IpAddress::parse(std::string_view text, IpAddress* out) {
  std::string s(text);  // inet_pton needs a terminated string
  IpAddress a;
  if (inet_pton(AF_INET, s.c_str(), a.bytes.data() + 12) == 1) {
    *out = a;
    return true;
  }
  if (inet_pton(AF_INET6, s.c_str(), a.bytes.data()) == 1) {
    a.v6 = true;
    *out = a;
    return true;
  }
  return false;
}

bool IpAddress::from_sockaddr(const sockaddr* address, IpAddress* out) {
  IpAddress a;
  if (address->sa_family == AF_INET) {
    sockaddr_in in;
    std::memcpy(&in, address, sizeof in);
    std::memcpy(a.bytes.data() + 12, &in.sin_addr, 4);
  } else if (address->sa_family == AF_INET6) {
    sockaddr_in6 in6;
    std::memcpy(&in6, address, sizeof in6);
    std::memcpy(a.bytes.data(), &in6.sin6_addr, 16);
    a.v6 = true;
  } else {
    return false;
  }
  *out = a;
  return true;
}

std::string IpAddress::to_string() const {
  char buffer[INET6_ADDRSTRLEN] = {};
  if (v6) {
    inet_ntop(AF_INET6, bytes.data(), buffer, sizeof buffer);
  } else {
    inet_ntop(AF_INET, bytes.data() + 12, buffer, sizeof buffer);
  }
  return buffer;
}

CidrRange CidrRange::parse(std::string_view text) {
  CidrRange range;
  const size_t slash = text.find('/');
  if (!IpAddress::parse(text.substr(0, slash), &range.base)) {
    throw std::invalid_argument("invalid address range '" + std::string(text) +
                                "': not an IPv4 or IPv6 address");
  }
  const unsigned max_bits = range.base.v6 ? 128 : 32;
  range.prefix_bits = max_bits;
  if (slash != std::string_view::npos) {
    const std::string_view bits = text.substr(slash + 1);
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(bits.data(), bits.data() + bits.size(), value);
    if (ec != std::errc() || end != bits.data() + bits.size() || bits.empty() || value > max_bits) {
      throw std::invalid_argument("invalid address range '" + std::string(text) +
                                  "': prefix length must be 0.." + std::to_string(max_bits));
    }
    range.prefix_bits = value;
  }
  return range;
}

bool CidrRange::contains(const IpAddress& address) const {
  if (address.v6 != base.v6) return false;
  const unsigned offset = base.v6 ? 0 : 12;  // IPv4 lives in the last 4 bytes
  unsigned bits = prefix_bits;
  for (unsigned i = offset; bits > 0; ++i) {
    const unsigned take = bits < 8 ? bits : 8;
    const uint8_t mask = static_cast<uint8_t>(0xFF00u >> take);
    if ((address.bytes[i] & mask) != (base.bytes[i] & mask)) return false;
    bits -= take;
  }
  return true;
}

AddressGuard::AddressGuard(const std::vector<std::string>& allowed_ranges) {
  for (const std::string& text : allowed_ranges) allowed_.push_back(CidrRange::parse(text));
}

AddressVerdict AddressGuard::check(const IpAddress& address) const {
  for (const CidrRange& range : allowed_) {
    if (range.contains(address)) return {};
  }
  if (!address.v6) {
    for (const NamedRange& blocked : blocked_v4()) {
      if (blocked.range.contains(address)) return {false, blocked.reason};
    }
    return {};
  }
  IpAddress v4;
  if (const char* form = embedded_v4(address, &v4)) {
    AddressVerdict inner = check(v4);
    if (!inner.allowed) inner.reason = std::string(form) + " " + v4.to_string() + ": " + inner.reason;
    return inner;
  }
  for (const NamedRange& blocked : blocked_v6()) {
    if (blocked.range.contains(address)) return {false, blocked.reason};
  }
  return {};
}

}  // namespace bloomcrawl
