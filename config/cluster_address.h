// The text rules of the cluster section (docs/cluster.md): a Redis server is written
// "redis://HOST:PORT" (config field cluster.redis) and, on the command line, with the crawl's name
// as "redis://HOST:PORT/NAME". HOST is a DNS name, an IPv4 address or a bracketed IPv6 address;
// PORT is required (1-65535). A crawl's name is 1-64 characters of [A-Za-z0-9._-], so it can sit
// inside Redis key names as it is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bloomcrawl {

struct ClusterAddress {
  std::string host;  // without brackets
  uint16_t port = 0;
  std::string name;  // empty when the text had none
  bool operator==(const ClusterAddress&) const = default;
};

// Throws std::invalid_argument saying what is wrong. `name` says whether "/NAME" must follow
// (true), must not (false).
ClusterAddress parse_cluster_address(std::string_view text, bool name);

// The problem with a crawl's name, if any.
std::optional<std::string> cluster_name_problem(std::string_view name);

}  // namespace bloomcrawl
