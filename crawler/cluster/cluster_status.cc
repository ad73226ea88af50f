#include "crawler/cluster/cluster_status.h"

#include <map>
#include <stdexcept>

#include "crawler/cluster/cluster_registry.h"
#include "crawler/cluster/redis_client.h"

namespace bloomcrawl {
namespace {

// Returns [the node hash's fields..., alive (0/1), Redis's clock in ms].
constexpr const char* kReadNodeScript = R"lua(
local t = redis.call('TIME')
local out = redis.call('HGETALL', KEYS[1])
table.insert(out, tostring(redis.call('EXISTS', KEYS[2])))
table.insert(out, t[1] .. string.format('%03d', math.floor(t[2] / 1000)))
return out
)lua";

uint64_t number(const std::map<std::string, std::string>& fields, const std::string& name) {
  auto it = fields.find(name);
  return it == fields.end() ? 0 : std::stoull(it->second);
}

}  // namespace

std::vector<std::string> counter_fields(const NodeCounters& c) {
  return {"pages",
          std::to_string(c.pages),
          "pages_per_second",
          std::to_string(c.pages_per_second),
          "queued",
          std::to_string(c.queued),
          "in_flight",
          std::to_string(c.in_flight),
          "duplicates_avoided",
          std::to_string(c.duplicates_avoided),
          "filter_keys",
          std::to_string(c.filter_keys),
          "dead_letters",
          std::to_string(c.dead_letters),
          "next_due_ms",
          std::to_string(c.next_due_ms),
          "state",
          c.state};
}

ClusterStatus read_cluster_status(RedisClient& redis, std::string_view name) {
  ClusterStatus status;
  status.name = std::string(name);
  const RedisValue meta = redis.command({"GET", cluster_key(name, "meta")});
  if (meta.is_nil()) {
    throw std::runtime_error("no crawl named " + status.name + " at " + redis.endpoint().url());
  }
  const nlohmann::json record = nlohmann::json::parse(meta.text(), nullptr, false);
  if (record.is_discarded() || !record.contains("nodes")) {
    throw std::runtime_error(cluster_key(name, "meta") + " at " + redis.endpoint().url() +
                             " is not a bloomcrawl record");
  }
  status.nodes = record["nodes"].get<uint32_t>();
  status.done = redis.command({"EXISTS", cluster_key(name, "done")}).integer() == 1;
  const RedisValue round = redis.command({"GET", cluster_key(name, "round")});
  status.round = round.is_nil() ? 0 : std::stoll(round.text());
  const RedisValue stop = redis.command({"GET", cluster_key(name, "stop")});
  status.stop_requests = stop.is_nil() ? 0 : std::stoll(stop.text());
  for (uint32_t i = 0; i < status.nodes; ++i) {
    const std::vector<RedisValue> reply =
        redis.call({"EVAL", kReadNodeScript, "2", cluster_key(name, "node:" + std::to_string(i)),
                    cluster_key(name, "alive:" + std::to_string(i))},
                   [](const RedisValue& v) { return v.array(); });
    if (reply.size() < 2) throw RedisError("node status: short reply");
    std::map<std::string, std::string> fields;
    const size_t hash_items = reply.size() - 2;
    for (size_t f = 0; f + 1 < hash_items; f += 2) {
      fields[reply[f].text()] = reply[f + 1].text();
    }
    const bool alive = reply[reply.size() - 2].text() == "1";
    const int64_t now_ms = std::stoll(reply.back().text());
    NodeStatus n;
    n.node = i;
    NodeCounters& c = n.counters;
    c.pages = number(fields, "pages");
    c.pages_per_second = fields.contains("pages_per_second") ? std::stod(fields["pages_per_second"]) : 0;
    c.queued = number(fields, "queued");
    c.in_flight = number(fields, "in_flight");
    c.duplicates_avoided = number(fields, "duplicates_avoided");
    c.filter_keys = number(fields, "filter_keys");
    c.dead_letters = number(fields, "dead_letters");
    c.next_due_ms = fields.contains("next_due_ms") ? std::stoll(fields["next_due_ms"]) : 0;
    n.round = fields.contains("round") ? std::stoll(fields["round"]) : 0;
    c.state = fields.contains("state") ? fields["state"] : "absent";
    if (fields.contains("updated_ms")) n.age_seconds = double(now_ms - std::stoll(fields["updated_ms"])) / 1000.0;
    if (!alive && (c.state == "running" || c.state == "stopping")) c.state = "stale";
    NodeCounters& t = status.total;
    t.pages += c.pages;
    t.pages_per_second += c.state == "running" || c.state == "stopping" ? c.pages_per_second : 0;
    t.queued += c.queued;
    t.in_flight += c.in_flight;
    t.duplicates_avoided += c.duplicates_avoided;
    t.filter_keys += c.filter_keys;
    t.dead_letters += c.dead_letters;
    status.per_node.push_back(std::move(n));
  }
  return status;
}

nlohmann::json to_json(const ClusterStatus& status) {
  auto counters = [](const NodeCounters& c) {
    return nlohmann::json{{"pages", c.pages},
                          {"pages_per_second", c.pages_per_second},
                          {"queued", c.queued},
                          {"in_flight", c.in_flight},
                          {"duplicates_avoided", c.duplicates_avoided},
                          {"filter_keys", c.filter_keys},
                          {"dead_letters", c.dead_letters}};
  };
  nlohmann::json nodes = nlohmann::json::array();
  for (const NodeStatus& n : status.per_node) {
    nlohmann::json j = counters(n.counters);
    j["node"] = n.node;
    j["state"] = n.counters.state;
    j["round"] = n.round;
    j["next_due_ms"] = n.counters.next_due_ms;
    j["age_seconds"] = n.age_seconds < 0 ? nlohmann::json() : nlohmann::json(n.age_seconds);
    nodes.push_back(std::move(j));
  }
  return {{"name", status.name},
          {"nodes", status.nodes},
          {"round", status.round},
          {"done", status.done},
          {"stop_requests", status.stop_requests},
          {"per_node", std::move(nodes)},
          {"total", counters(status.total)}};
}

int64_t request_cluster_stop(RedisClient& redis, std::string_view name) {
  if (redis.command({"EXISTS", cluster_key(name, "meta")}).integer() == 0) {
    throw std::runtime_error("no crawl named " + std::string(name) + " at " + redis.endpoint().url());
  }
  return redis.call({"INCR", cluster_key(name, "stop")}, [](const RedisValue& v) { return v.integer(); });
}

}  // namespace bloomcrawl
