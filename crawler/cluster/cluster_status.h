// The crawl seen from anywhere (docs/cluster.md, "Key layout" and "Status and stop"): what each node
// publishes every second in its node hash, read back for `bloomcrawl status --cluster`, and the
// stop request of `bloomcrawl stop --cluster`.
//
// Contract:
// - A node's counters are fields of bloomcrawl:NAME:node:I, stamped `updated_ms` with Redis's own
//   clock (so ages compare across machines); bloomcrawl:NAME:alive:I exists while the node runs and
//   expires shortly after it dies. read_cluster_status() reads them all with N from the crawl's
//   record, in one round trip per node; a node that never published is "absent", one whose
//   liveness key expired before it reached "stopped" or "done" is "stale".
// - request_cluster_stop() increments bloomcrawl:NAME:stop; every node started before it stops as on
//   SIGINT, one started after it reads the new value as its own start and runs.
// Errors throw RedisError; a crawl unknown to Redis throws std::runtime_error naming it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace bloomcrawl {

class RedisClient;

struct NodeCounters {
  uint64_t pages = 0;
  double pages_per_second = 0;  // over the last interval
  uint64_t queued = 0;
  uint64_t in_flight = 0;
  uint64_t duplicates_avoided = 0;
  uint64_t filter_keys = 0;
  uint64_t dead_letters = 0;  // malformed inbox entries moved to the node's dead-letter stream
  int64_t next_due_ms = 0;    // recrawl: when the node's next known page falls due (Unix ms; 0: none)
  std::string state;          // "running", "stopping", "stopped" or "done"; read back also "stale" or "absent"
};

// The node hash's fields and values, as HSET takes them after the key.
std::vector<std::string> counter_fields(const NodeCounters& counters);

struct NodeStatus {
  uint32_t node = 0;
  NodeCounters counters;
  double age_seconds = -1;  // since updated_ms, by Redis's clock; -1 when absent
  int64_t round = 0;        // the round the node last took part in (its hash's `round`, set by the scripts)
};

struct ClusterStatus {
  std::string name;
  uint32_t nodes = 0;
  bool done = false;          // the end of the current round (the first run's: the crawl's) was detected
  int64_t round = 0;          // the cluster's current round: 0 the first run, then each revisit round
  int64_t stop_requests = 0;  // times `bloomcrawl stop --cluster` was run
  std::vector<NodeStatus> per_node;
  NodeCounters total;  // sums; state empty
};

ClusterStatus read_cluster_status(RedisClient& redis, std::string_view name);
nlohmann::json to_json(const ClusterStatus& status);

// Returns the stop key's new value.
int64_t request_cluster_stop(RedisClient& redis, std::string_view name);

}  // namespace bloomcrawl
