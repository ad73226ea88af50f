#include "crawler/fetch/address_guard.h"

#include <cstring>
#include <iterator>

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
