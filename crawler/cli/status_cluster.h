// `bloomcrawl status --cluster redis://HOST:PORT/NAME`: the whole crawl of a cluster, per node and in
// total, as a table or (json) as one JSON document (docs/cluster.md, "Status and stop").
#pragma once

#include <ostream>
#include <string>

namespace bloomcrawl::cli {

// Returns the exit code: 0, or 1 when Redis cannot be reached or holds no such crawl (thrown).
// `password_file` / `password_env`: where the Redis password is when the address has none
// (crawler/cluster/redis_password.h).
int run_status_cluster(const std::string& address, const std::string& password_file, const std::string& password_env,
                       bool json, std::ostream& out);

}  // namespace bloomcrawl::cli
