#include "crawler/cluster/cluster_registry.h"

#include "config/key_hash.h"
#include "crawler/cluster/redis_client.h"

namespace bloomcrawl {
namespace {

constexpr int kFormat = 1;  // of the meta record; docs/cluster.md

nlohmann::json to_record(const ClusterIdentity& id) {
  return {{"format", kFormat},
          {"name", id.name},
          {"nodes", id.nodes},
          {"key_hash", id.key_hash},
          {"key_fields", id.key_fields}};
}

std::string value_at(const nlohmann::json& doc, const std::string& path) {
  const nlohmann::json::json_pointer pointer(path);
  return doc.contains(pointer) ? doc.at(pointer).dump() : "(absent)";
}

// The differences between the recorded identity and this node's, one "\n  ..." line each.
std::string differences(const nlohmann::json& recorded, const ClusterIdentity& id) {
  std::string out;
  if (recorded.value("format", 0) != kFormat) {
    return "\n  the record has format " + recorded.value("format", nlohmann::json()).dump() +
           ", this bloomcrawl writes format " + std::to_string(kFormat);
  }
  if (recorded.value("nodes", nlohmann::json()) != id.nodes) {
    out += "\n  nodes: " + recorded.value("nodes", nlohmann::json()).dump() + " in the cluster, " +
           std::to_string(id.nodes) + " on this node (--nodes, /cluster/nodes)";
  }
  if (recorded.value("key_hash", "") != id.key_hash) {
    const nlohmann::json before = recorded.value("key_fields", nlohmann::json::object());
    const nlohmann::json patch = nlohmann::json::diff(before, id.key_fields);
    for (const nlohmann::json& op : patch) {
      const std::string path = op["path"];
      out += "\n  " + path + ": " + value_at(before, path) + " in the cluster, " + value_at(id.key_fields, path) +
             " on this node";
    }
    if (patch.empty()) {
      out += "\n  canonical key hash: " + recorded.value("key_hash", "") + " in the cluster, " + id.key_hash +
             " on this node (a different bloomcrawl version?)";
    }
  }
  return out;
}

}  // namespace

ClusterIdentity cluster_identity(const CrawlConfig& config) {
  return ClusterIdentity{config.cluster.name, static_cast<uint32_t>(config.cluster.nodes), canonical_key_hash(config),
                         key_affecting_fields(config)};
}

std::string cluster_key(std::string_view name, std::string_view suffix) {
  std::string key = "bloomcrawl:";
  key += name;
  key += ':';
  key += suffix;
  return key;
}

void join_cluster(RedisClient& redis, const ClusterIdentity& id) {
  const std::string key = cluster_key(id.name, "meta");
  redis.command({"SET", key, to_record(id).dump(), "NX"});
  const std::string text = redis.call({"GET", key}, [](const RedisValue& v) { return v.text(); });
  nlohmann::json recorded = nlohmann::json::parse(text, nullptr, false);
  if (recorded.is_discarded() || !recorded.is_object()) {
    throw ClusterMismatch("cluster " + id.name + " at " + redis.endpoint().url() + ": " + key +
                          " is not a bloomcrawl record");
  }
  const std::string diff = differences(recorded, id);
  if (!diff.empty()) {
    throw ClusterMismatch("cannot join cluster " + id.name + " at " + redis.endpoint().url() +
                          ": this node differs from the crawl recorded there:" + diff +
                          "\nStart every node with the same config and --nodes, or name a new crawl.");
  }
}

void grow_cluster(RedisClient& redis, const ClusterIdentity& id) {
  const std::string key = cluster_key(id.name, "meta");
  const RedisValue meta = redis.command({"GET", key});
  const std::string where = "cannot grow cluster " + id.name + " at " + redis.endpoint().url() + ": ";
  if (meta.is_nil()) throw ClusterMismatch(where + "no crawl of that name is recorded there");
  const nlohmann::json recorded = nlohmann::json::parse(meta.text(), nullptr, false);
  if (recorded.is_discarded() || !recorded.is_object() || !recorded.contains("nodes")) {
    throw ClusterMismatch(where + key + " is not a bloomcrawl record");
  }
  const auto before = recorded["nodes"].get<uint32_t>();
  if (id.nodes < before) {
    throw ClusterMismatch(where + "it has " + std::to_string(before) + " nodes; a cluster does not shrink");
  }
  if (id.nodes == before) return;  // grown already, by another node started with the same --nodes
  ClusterIdentity same_n = id;
  same_n.nodes = before;
  if (const std::string diff = differences(recorded, same_n); !diff.empty()) {
    throw ClusterMismatch(where + "this node differs from the crawl recorded there:" + diff);
  }
  for (uint32_t node = 0; node < before; ++node) {
    if (redis.command({"EXISTS", cluster_key(id.name, "alive:" + std::to_string(node))}).integer() == 1) {
      throw ClusterMismatch(where + "node " + std::to_string(node) +
                            " is running; stop the crawl first (bloomcrawl stop --cluster)");
    }
  }
  nlohmann::json record = to_record(id);
  record["grown_from"] = before;  // the nodes that hand over (ClusterLink::wait_for_handovers)
  redis.command({"SET", key, record.dump()});
}

}  // namespace bloomcrawl
