#include "crawler/cli/status_cluster.h"

#include <cstdio>

#include "config/cluster_address.h"
#include "crawler/cluster/cluster_status.h"
#include "crawler/cluster/redis_client.h"
#include "crawler/cluster/redis_password.h"
#include "crawler/output/timestamp.h"

namespace bloomcrawl::cli {
namespace {

std::string row(const std::string& node, const NodeCounters& c, const std::string& age) {
  char line[160];
  std::snprintf(line, sizeof line, "%-6s %-9s %12llu %9.1f %12llu %10llu %14llu %8s\n", node.c_str(), c.state.c_str(),
                (unsigned long long)c.pages, c.pages_per_second, (unsigned long long)c.queued,
                (unsigned long long)c.in_flight, (unsigned long long)c.duplicates_avoided, age.c_str());
  return line;
}

std::string format_status(const ClusterStatus& s) {
  // Round 0 is the first run; a revisit round's end is the round's, not the crawl's (docs/cluster.md, "Rounds").
  const std::string done = s.round == 0 ? ", crawl done" : ", round done";
  std::string out = "cluster " + s.name + ": " + std::to_string(s.nodes) + " nodes" +
                    (s.round > 0 ? ", round " + std::to_string(s.round) : "") + (s.done ? done : "") +
                    (s.stop_requests > 0 ? ", stop requested " + std::to_string(s.stop_requests) + "x" : "") + "\n";
  out += "node   state            pages    pages/s       queued  in flight  dups avoided   age\n";
  for (const NodeStatus& n : s.per_node) {
    char age[32] = "-";
    if (n.age_seconds >= 0) std::snprintf(age, sizeof age, "%.1fs", n.age_seconds);
    out += row(std::to_string(n.node), n.counters, age);
  }
  out += row("total", s.total, "");
  for (const NodeStatus& n : s.per_node) {
    if (n.counters.next_due_ms <= 0) continue;
    out += "node " + std::to_string(n.node) + ": round " + std::to_string(n.round) + ", next due " +
           rfc3339_utc_ms(std::chrono::system_clock::time_point(std::chrono::milliseconds(n.counters.next_due_ms))) +
           "\n";
  }
  return out;
}

}  // namespace

int run_status_cluster(const std::string& address, const std::string& password_file, const std::string& password_env,
                       bool json, std::ostream& out) {
  const ClusterAddress a = parse_cluster_address(address, true);
  RedisClient redis(cluster_endpoint(a, password_file, password_env),
                    RedisOptions{.reconnect_for = std::chrono::milliseconds{0}});
  const ClusterStatus status = read_cluster_status(redis, a.name);
  out << (json ? to_json(status).dump(2) + "\n" : format_status(status));
  return 0;
}

}  // namespace bloomcrawl::cli
