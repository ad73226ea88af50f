// Where a node's Redis password comes from (docs/cluster.md, "Authentication"): --cluster's URL, a
// file (config cluster.password_file) or an environment variable (cluster.password_env), at most
// one of them. A file or a variable keeps the password out of `ps` output and out of the config,
// which report.json and every checkpoint copy.
//
// Contract:
// - redis_password() returns the one password given ("" for none). A file's content is the password
//   with one trailing newline (as `echo` writes it) removed. A missing file, an unset or empty
//   variable, an empty file and two sources given are errors (std::runtime_error naming the file or
//   the variable, never the password).
// - cluster_endpoint() is the Redis server of a config's cluster section, or of a URL and the
//   password file or variable given beside it (`bloomcrawl status|stop --cluster`), with its credentials.
#pragma once

#include <string>

#include "config/cluster_address.h"
#include "config/config.h"
#include "crawler/cluster/redis_client.h"

namespace bloomcrawl {

std::string redis_password(const std::string& url_password, const std::string& password_file,
                           const std::string& password_env);

RedisEndpoint cluster_endpoint(const ClusterConfig& cluster);
RedisEndpoint cluster_endpoint(const ClusterAddress& address, const std::string& password_file,
                               const std::string& password_env);

}  // namespace bloomcrawl
