// The crawl's shared record in Redis (docs/cluster.md, "Key layout"): every key of a crawl named
// NAME is "bloomcrawl:NAME:...". join_cluster() records the crawl's identity (name, N, the config's
// canonical key hash and the key-affecting fields it hashes) at the first start with SET NX, so of
// nodes starting at once exactly one records it; every node then checks its own identity against
// the recorded one and is refused on any difference, before it touches anything else.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "config/config.h"

namespace bloomcrawl {

class RedisClient;

// A node whose identity differs from the crawl's recorded one; the message names each difference.
class ClusterMismatch : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ClusterIdentity {
  std::string name;
  uint32_t nodes = 1;
  std::string key_hash;       // canonical_key_hash(config)
  nlohmann::json key_fields;  // key_affecting_fields(config), to name the fields that differ
};

ClusterIdentity cluster_identity(const CrawlConfig& config);

// "bloomcrawl:NAME:SUFFIX".
std::string cluster_key(std::string_view name, std::string_view suffix);

// Records `identity` if the crawl has none yet, else checks it; throws ClusterMismatch on a
// difference, RedisError when Redis fails.
void join_cluster(RedisClient& redis, const ClusterIdentity& identity);

// Records identity.nodes as the crawl's N when it is larger than the recorded N (docs/cluster.md,
// "Adding nodes"); then join_cluster() admits the nodes started with it. Throws ClusterMismatch when
// no crawl is recorded, N would shrink, the config keys URLs differently, or a node of the crawl is
// still running (its liveness key exists): the crawl must be stopped first.
void grow_cluster(RedisClient& redis, const ClusterIdentity& identity);

}  // namespace bloomcrawl
