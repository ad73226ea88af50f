#include "crawler/cluster/redis_password.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace bloomcrawl {

std::string redis_password(const std::string& url_password, const std::string& password_file,
                           const std::string& password_env) {
  const int sources = int(!url_password.empty()) + int(!password_file.empty()) + int(!password_env.empty());
  if (sources > 1) {
    throw std::runtime_error(
        "Redis password: give it once, in --cluster's URL, cluster.password_file or cluster.password_env");
  }
  if (!password_file.empty()) {
    std::ifstream in(password_file, std::ios::binary);
    if (!in) throw std::runtime_error("Redis password file " + password_file + ": cannot be read");
    std::stringstream text;
    text << in.rdbuf();
    std::string password = text.str();
    if (password.ends_with('\n')) password.pop_back();
    if (password.ends_with('\r')) password.pop_back();
    if (password.empty()) throw std::runtime_error("Redis password file " + password_file + ": empty");
    return password;
  }
  if (!password_env.empty()) {
    const char* value = std::getenv(password_env.c_str());
    if (value == nullptr || *value == '\0') {
      throw std::runtime_error("Redis password: environment variable " + password_env + " is not set");
    }
    return value;
  }
  return url_password;
}

RedisEndpoint cluster_endpoint(const ClusterConfig& cluster) {
  const ClusterAddress address = parse_cluster_address(cluster.redis, false);
  return RedisEndpoint{address.host, address.port, cluster.user,
                       redis_password(cluster.url_password, cluster.password_file, cluster.password_env)};
}

RedisEndpoint cluster_endpoint(const ClusterAddress& address, const std::string& password_file,
                               const std::string& password_env) {
  return RedisEndpoint{address.host, address.port, address.user,
                       redis_password(address.password, password_file, password_env)};
}

}  // namespace bloomcrawl
