// The text rules of the cluster section (docs/cluster.md): a Redis server is written
// "redis://HOST:PORT" (config field cluster.redis) and, on the command line, with the crawl's name
// as "redis://[USER:]PASSWORD@HOST:PORT/NAME" (the credentials are optional; they follow redis-cli's
// URL: "USER:PASSWORD@" is a Redis 6 ACL user, "PASSWORD@" or ":PASSWORD@" the default user; '%XX'
// escapes any byte). HOST is a DNS name, an IPv4 address or a bracketed IPv6 address; PORT is required
// (1-65535). A crawl's name is 1-64 characters of [A-Za-z0-9._-], so it can sit inside Redis key
// names as it is. "rediss://" (TLS) is refused with the reason: Debian 12's hiredis has no TLS.
// An error message never repeats a password.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bloomcrawl {

struct ClusterAddress {
  std::string host;  // without brackets
  uint16_t port = 0;
  std::string name;      // empty when the text had none
  std::string user;      // empty: Redis's default user
  std::string password;  // empty: none in the text
  bool operator==(const ClusterAddress&) const = default;
  // "redis://HOST:PORT": the server without credentials or name, as config cluster.redis holds it.
  std::string server_url() const;
};

// Throws std::invalid_argument saying what is wrong. `name` says whether "/NAME" must follow
// (true), must not (false).
ClusterAddress parse_cluster_address(std::string_view text, bool name);

// The problem with a crawl's name, if any.
std::optional<std::string> cluster_name_problem(std::string_view name);

}  // namespace bloomcrawl
