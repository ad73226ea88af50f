// The text rule of metrics.listen and `--metrics` (docs/metrics.md): "HOST:PORT", where HOST is a
// DNS name, an IPv4 address or a bracketed IPv6 address and PORT is 0-65535 (0: any free port,
// the one taken is logged). Empty means off.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace bloomcrawl {

struct ListenAddress {
  std::string host;  // without brackets
  uint16_t port = 0;
  bool operator==(const ListenAddress&) const = default;
};

// Throws std::invalid_argument saying what is wrong.
ListenAddress parse_listen_address(std::string_view text);

}  // namespace bloomcrawl
