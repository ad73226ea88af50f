// AddressGuard: decides whether the crawler may open a connection to an IP address (SSRF guard).
//
// Contract:
// - Blocks every address that is not globally reachable unicast: loopback, unspecified, private
//   (RFC 1918), shared/CGNAT (100.64.0.0/10), link-local, multicast, broadcast, documentation,
//   benchmarking and reserved ranges of IPv4, and IPv6 loopback, unspecified, ULA, link-local,
//   site-local, multicast, documentation, discard and deprecated/embedded forms. IPv6 forms that
//   carry an IPv4 address (v4-mapped, v4-compatible, NAT64, 6to4) are judged by that IPv4 address.
// - Ranges given as allowed (CIDR, or a bare address; base/ip_address.h's strict syntax, the one
//   config validates with) are exempt; they are checked first, also
//   against the IPv4 address inside a v4-mapped IPv6 address.
// - It is checked on the address actually being connected to (after DNS), so rebinding a name to an
//   internal address cannot bypass it. The ranges and reasons are in docs/fetcher.md.
// - Thread-safe after construction (read-only).
#pragma once

#include <string>
#include <vector>

#include "base/ip_address.h"

namespace bloomcrawl {

struct AddressVerdict {
  bool allowed = true;
  std::string reason;  // for a blocked address: the range and its name, e.g. "127.0.0.0/8 loopback"
};

class AddressGuard {
 public:
  // Throws std::invalid_argument naming the malformed entry of `allowed_ranges`.
  explicit AddressGuard(const std::vector<std::string>& allowed_ranges = {});

  AddressVerdict check(const IpAddress& address) const;

 private:
  std::vector<CidrRange> allowed_;
};

}  // namespace bloomcrawl
