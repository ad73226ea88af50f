// Which Host header values the status port answers. A web page the operator opens can make the
// browser send requests to the port under the page's own name, once that name's DNS answer is
// switched to the port's address (DNS rebinding); the browser then lets the page read the
// answers. The Host header still carries the page's name, so the port answers only names that
// cannot be rebound by someone else (docs/metrics.md, "Safe to leave on"):
//   - the listen address's host itself (an IP literal or the name the operator chose);
//   - "localhost" when the listen host is a loopback address or localhost;
//   - any IP literal when the listen host is a wildcard (0.0.0.0, ::): no DNS name is involved;
//   - the names in metrics.allowed_hosts.
// Names compare case-insensitively, without a trailing dot; the port in the header is ignored
// (the socket it arrived on is the port).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace bloomcrawl {

class HostAllowlist {
 public:
  // `listen_host` without brackets; `configured`: host names, IPv6 literals in brackets or not.
  HostAllowlist(std::string_view listen_host, const std::vector<std::string>& configured);

  // `host_header`: the Host field's value, "NAME", "NAME:PORT", "[IPv6]" or "[IPv6]:PORT".
  bool allows(std::string_view host_header) const;

 private:
  std::vector<std::string> names_;  // normalized: lower case, no brackets, no trailing dot
  bool any_ip_literal_ = false;
};

}  // namespace bloomcrawl
