#include "crawler/cluster/cluster_link.h"

#include <map>
#include <optional>
#include <thread>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "crawler/cluster/cluster_registry.h"
#include "crawler/cluster/cluster_report.h"

namespace bloomcrawl {
namespace {

constexpr const char* kGroup = "nodes";
constexpr int kReadCount = 64;

// Acknowledges and deletes the entries ARGV of inbox KEYS[1], marks node KEYS[2] busy (it has new
// work) and returns its total of acknowledged entries.
constexpr const char* kAcknowledgeScript = R"lua(
local n = redis.call('XACK', KEYS[1], 'nodes', unpack(ARGV))
redis.call('XDEL', KEYS[1], unpack(ARGV))
redis.call('HSET', KEYS[2], 'idle', '0')
return redis.call('HINCRBY', KEYS[2], 'received', n)
)lua";

// Moves a malformed entry aside: KEYS the inbox and its dead-letter stream, ARGV the entry's id, the
// sender, its text and why it is malformed. The entry leaves the inbox (acknowledged and deleted)
// in the same step as it enters the dead-letter stream, so it is in exactly one of them.
constexpr const char* kDeadLetterScript = R"lua(
redis.call('XADD', KEYS[2], '*', 'id', ARGV[1], 'from', ARGV[2], 'batch', ARGV[3], 'error', ARGV[4])
redis.call('XACK', KEYS[1], 'nodes', ARGV[1])
return redis.call('XDEL', KEYS[1], ARGV[1])
)lua";

// KEYS: the done key, the round key, the N node hashes, the N inboxes. ARGV: this node's index
// (1-based among the node hashes), the acknowledged total its idleness was seen with, and its round.
// Returns 2 when a later round has started, 1 when the node's round is over (recorded in the done
// key, which holds the round), 0 while it goes on. Marks the node idle unless it acknowledged more
// since; only the marks of the current round count (a node's `round` field).
constexpr const char* kFinishedScript = R"lua(
local round = tonumber(redis.call('GET', KEYS[2]) or '0')
if round ~= tonumber(ARGV[3]) then return 2 end
if redis.call('EXISTS', KEYS[1]) == 1 then return 1 end
local n = (#KEYS - 2) / 2
local own = KEYS[2 + tonumber(ARGV[1])]
if tonumber(redis.call('HGET', own, 'received') or '0') == tonumber(ARGV[2]) then
  redis.call('HSET', own, 'idle', '1')
end
for i = 3, n + 2 do
  if redis.call('HGET', KEYS[i], 'idle') ~= '1' then return 0 end
  if tonumber(redis.call('HGET', KEYS[i], 'round') or '0') ~= round then return 0 end
end
for i = n + 3, #KEYS do
  if redis.call('XLEN', KEYS[i]) > 0 then return 0 end
end
redis.call('SET', KEYS[1], round)
return 1
)lua";

// KEYS: the done key, the round key, the node hash. ARGV: "1" to start the next round when the
// current one is over (done). Marks the node busy in the round it takes part in and returns it.
constexpr const char* kEnterRoundScript = R"lua(
local round = tonumber(redis.call('GET', KEYS[2]) or '0')
if ARGV[1] == '1' and redis.call('EXISTS', KEYS[1]) == 1 then
  round = round + 1
  redis.call('SET', KEYS[2], round)
  redis.call('DEL', KEYS[1])
end
redis.call('HSET', KEYS[3], 'round', round, 'idle', '0')
return round
)lua";

// KEYS: the node hash, its liveness key, the stop key. ARGV: how long the node counts as alive in ms
// ("0": it has ended), then the counters' field/value pairs. Returns the stop key's value.
constexpr const char* kPublishScript = R"lua(
local t = redis.call('TIME')
redis.call('HSET', KEYS[1], 'updated_ms', t[1] .. string.format('%03d', math.floor(t[2] / 1000)), unpack(ARGV, 2))
if ARGV[1] == '0' then redis.call('DEL', KEYS[2]) else redis.call('SET', KEYS[2], '1', 'PX', ARGV[1]) end
return tonumber(redis.call('GET', KEYS[3]) or '0')
)lua";

// KEYS: the reports hash. ARGV: the node's index, its report. Stamps the report with Redis's clock.
constexpr const char* kStoreReportScript = R"lua(
local t = redis.call('TIME')
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2], ARGV[1] .. ':ms', t[1] .. string.format('%03d', math.floor(t[2] / 1000)))
)lua";

// KEYS: the reports hash, then every node's liveness key (node I's at I + 2). ARGV: this run's start
// (Redis's ms). Returns per node its report of this run or, without one, 1 while its liveness key
// exists and 0 when not. One script, because a node stores its report and then drops its liveness: read apart,
// the reports before the liveness, a node doing both in between would look dead without a report.
constexpr const char* kGatherReportsScript = R"lua(
local out = {}
for i = 1, #KEYS - 1 do
  local node = tostring(i - 1)
  local ms = redis.call('HGET', KEYS[1], node .. ':ms')
  if ms and tonumber(ms) >= tonumber(ARGV[1]) then
    out[i] = redis.call('HGET', KEYS[1], node)
  else
    out[i] = redis.call('EXISTS', KEYS[i + 1])
  end
end
return out
)lua";

constexpr const char* kTimeScript =
    "local t = redis.call('TIME') return t[1] .. string.format('%03d', math.floor(t[2] / 1000))";

// How often gather_reports() and wait_for_handovers() look at Redis again.
constexpr std::chrono::milliseconds kReportPoll{100};

}  // namespace

namespace {

nlohmann::json batch_json(const RoutedBatch& batch) {
  nlohmann::json urls = nlohmann::json::array();
  for (const RoutedUrl& u : batch.urls) urls.push_back({u.url, u.host, u.kind, u.sitemap ? 1 : 0});
  nlohmann::json j{{"d", batch.depth}, {"h", batch.hops}, {"p", batch.parent}, {"u", std::move(urls)}};
  if (batch.seen_only) j["s"] = 1;
  return j;
}

RoutedBatch batch_from(const nlohmann::json& j) {
  RoutedBatch batch{
      j.at("d").get<uint32_t>(), j.at("h").get<uint32_t>(), j.at("p").get<std::string>(), {}, j.value("s", 0) == 1};
  for (const nlohmann::json& u : j.at("u")) {
    batch.urls.push_back(
        {u.at(0).get<std::string>(), u.at(1).get<std::string>(), u.at(2).get<int>(), u.at(3).get<int>() != 0});
  }
  return batch;
}

}  // namespace

std::string encode_batch(const RoutedBatch& batch) { return batch_json(batch).dump(); }

std::string encode_batches(const std::vector<RoutedBatch>& batches) {
  if (batches.size() == 1) return encode_batch(batches.front());
  nlohmann::json all = nlohmann::json::array();
  for (const RoutedBatch& b : batches) all.push_back(batch_json(b));
  return all.dump();
}

std::vector<RoutedBatch> decode_batches(std::string_view text) {
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    std::vector<RoutedBatch> out;
    if (j.is_array()) {
      for (const nlohmann::json& b : j) out.push_back(batch_from(b));
    } else {
      out.push_back(batch_from(j));
    }
    return out;
  } catch (const nlohmann::json::exception& e) {
    throw RedisError(std::string("malformed inbox entry: ") + e.what());
  }
}

ClusterLink::ClusterLink(ClusterSettings settings, RoundStart start)
    : settings_(std::move(settings)),
      partition_(settings_.nodes),
      send_client_(settings_.redis),
      inbox_client_(settings_.redis),
      control_client_(settings_.redis) {
  try {
    control_client_.command({"XGROUP", "CREATE", inbox(settings_.node), kGroup, "0", "MKSTREAM"});
  } catch (const RedisError& e) {
    if (std::string(e.what()).find("BUSYGROUP") == std::string::npos) throw;  // it exists: a restart
  }
  const std::string key = node_key(settings_.node);
  enter_round(start);
  const RedisValue received = control_client_.command({"HGET", key, "received"});
  acknowledged_ = received.is_nil() ? 0 : std::stoll(received.text());
  const RedisValue stop = control_client_.command({"GET", cluster_key(settings_.name, "stop")});
  stop_requests_ = stop.is_nil() ? 0 : std::stoll(stop.text());
  started_ms_ =
      std::stoll(control_client_.call({"EVAL", kTimeScript, "0"}, [](const RedisValue& v) { return v.text(); }));
}

std::string ClusterLink::inbox(uint32_t node) const {
  return cluster_key(settings_.name, "inbox:" + std::to_string(node));
}

std::string ClusterLink::node_key(uint32_t node) const {
  return cluster_key(settings_.name, "node:" + std::to_string(node));
}

std::string ClusterLink::dead_letter_key() const {
  return cluster_key(settings_.name, "dead-letter:" + std::to_string(settings_.node));
}

std::string ClusterLink::alive_key(uint32_t node) const {
  return cluster_key(settings_.name, "alive:" + std::to_string(node));
}

void ClusterLink::send(uint32_t node, const std::vector<RoutedBatch>& batches) {
  const std::string text = encode_batches(batches);
  {
    std::lock_guard lock(send_mu_);
    send_client_.command({"XADD", inbox(node), "*", "from", std::to_string(settings_.node), "batch", text});
  }
  batches_sent_.fetch_add(1);
  for (const RoutedBatch& b : batches) urls_sent_.fetch_add(b.urls.size());
}

std::vector<InboxEntry> ClusterLink::receive(std::chrono::milliseconds wait) {
  std::vector<std::string> argv = {
      "XREADGROUP", "GROUP", kGroup, "node-" + std::to_string(settings_.node), "COUNT", std::to_string(kReadCount)};
  if (history_done_) argv.insert(argv.end(), {"BLOCK", std::to_string(wait.count())});
  argv.insert(argv.end(), {"STREAMS", inbox(settings_.node), history_done_ ? ">" : "0"});
  struct Malformed {
    std::string id, from, text, why;
  };
  std::vector<Malformed> malformed;
  std::vector<InboxEntry> entries = inbox_client_.call(argv, [&](const RedisValue& reply) {
    std::vector<InboxEntry> out;
    if (reply.is_nil()) return out;  // BLOCK timed out
    for (const RedisValue& stream : reply.array()) {
      for (const RedisValue& entry : stream.array().at(1).array()) {
        InboxEntry e{entry.array().at(0).text(), {}};
        const RedisValue& fields = entry.array().at(1);
        if (fields.is_nil()) {  // deleted since it was delivered: nothing to admit, only to acknowledge
          out.push_back(std::move(e));
          continue;
        }
        std::string from;
        std::optional<std::string> text;
        for (size_t i = 0; i + 1 < fields.array().size(); i += 2) {
          if (fields.array()[i].text() == "batch") text = fields.array()[i + 1].text();
          if (fields.array()[i].text() == "from") from = fields.array()[i + 1].text();
        }
        try {
          if (!text) throw RedisError("malformed inbox entry: no batch field");
          e.batches = decode_batches(*text);
          out.push_back(std::move(e));
        } catch (const RedisError& bad) {
          malformed.push_back({e.id, from, text.value_or(""), bad.what()});
        }
      }
    }
    return out;
  });
  for (const Malformed& m : malformed) {
    spdlog::error("cluster inbox {}: entry {} from node {} moved to {}: {}", inbox(settings_.node), m.id,
                  m.from.empty() ? "?" : m.from, dead_letter_key(), m.why);
    inbox_client_.command(
        {"EVAL", kDeadLetterScript, "2", inbox(settings_.node), dead_letter_key(), m.id, m.from, m.text, m.why});
    dead_letters_.fetch_add(1);
  }
  if (!history_done_ && entries.empty()) history_done_ = true;
  // A reply lost with a connection leaves its entries delivered but unseen: read the history again.
  if (inbox_client_.connections() != inbox_connections_) {
    inbox_connections_ = inbox_client_.connections();
    history_done_ = false;
  }
  return entries;
}

void ClusterLink::acknowledge(const std::vector<InboxEntry>& entries) {
  if (entries.empty()) return;
  std::vector<std::string> argv = {"EVAL", kAcknowledgeScript, "2", inbox(settings_.node), node_key(settings_.node)};
  for (const InboxEntry& e : entries) argv.push_back(e.id);
  acknowledged_ = inbox_client_.call(argv, [](const RedisValue& v) { return v.integer(); });
  batches_received_.fetch_add(entries.size());
}

RoundEnd ClusterLink::finished(const std::function<bool()>& locally_idle) {
  // Read before looking at the node's own work: an entry acknowledged after this read makes the
  // script's comparison fail, so the node is never published idle with work it took meanwhile.
  const int64_t acknowledged = acknowledged_.load();
  if (!locally_idle()) {
    if (published_idle_) control_client_.command({"HSET", node_key(settings_.node), "idle", "0"});
    published_idle_ = false;
    return RoundEnd::kRunning;
  }
  std::vector<std::string> argv = {"EVAL", kFinishedScript, std::to_string(2 + 2 * settings_.nodes),
                                   cluster_key(settings_.name, "done"), cluster_key(settings_.name, "round")};
  for (uint32_t i = 0; i < settings_.nodes; ++i) argv.push_back(node_key(i));
  for (uint32_t i = 0; i < settings_.nodes; ++i) argv.push_back(inbox(i));
  argv.push_back(std::to_string(1 + settings_.node));
  argv.push_back(std::to_string(acknowledged));
  argv.push_back(std::to_string(round_));
  published_idle_ = true;
  const int64_t end = control_client_.call(argv, [](const RedisValue& v) { return v.integer(); });
  return end == 2 ? RoundEnd::kLater : end == 1 ? RoundEnd::kOver : RoundEnd::kRunning;
}

int64_t ClusterLink::enter_round() { return enter_round(RoundStart::kNextWhenOver); }

int64_t ClusterLink::enter_round(RoundStart start) {
  round_ = control_client_.call(
      {"EVAL", kEnterRoundScript, "3", cluster_key(settings_.name, "done"), cluster_key(settings_.name, "round"),
       node_key(settings_.node), start == RoundStart::kNextWhenOver ? "1" : "0"},
      [](const RedisValue& v) { return v.integer(); });
  published_idle_ = false;
  return round_;
}

}  // namespace bloomcrawl

namespace bloomcrawl {

bool ClusterLink::publish(const NodeCounters& counters, std::chrono::milliseconds alive_for) {
  std::vector<std::string> argv = {"EVAL",
                                   kPublishScript,
                                   "3",
                                   node_key(settings_.node),
                                   alive_key(settings_.node),
                                   cluster_key(settings_.name, "stop"),
                                   std::to_string(alive_for.count())};
  for (std::string& f : counter_fields(counters)) argv.push_back(std::move(f));
  return control_client_.call(argv, [](const RedisValue& v) { return v.integer(); }) > stop_requests_;
}

void ClusterLink::store_report(const nlohmann::json& report) {
  control_client_.command({"EVAL", kStoreReportScript, "1", cluster_key(settings_.name, "reports"),
                           std::to_string(settings_.node), report.dump()});
}

nlohmann::json ClusterLink::gather_reports(std::chrono::milliseconds wait) {
  std::vector<std::string> argv = {"EVAL", kGatherReportsScript, std::to_string(1 + settings_.nodes),
                                   cluster_key(settings_.name, "reports")};
  for (uint32_t node = 0; node < settings_.nodes; ++node) argv.push_back(alive_key(node));
  argv.push_back(std::to_string(started_ms_));  // this run's reports: an earlier run's are older
  const auto give_up_at = std::chrono::steady_clock::now() + wait;
  for (;;) {
    const RedisValue per_node = control_client_.command(argv);
    std::map<uint32_t, nlohmann::json> found;
    bool waiting = false;
    for (uint32_t node = 0; node < settings_.nodes && node < per_node.array().size(); ++node) {
      const RedisValue& v = per_node.array()[node];
      if (v.type() == RedisValue::Type::kString) {
        found[node] = nlohmann::json::parse(v.text(), nullptr, false);
      } else if (v.integer() == 1) {
        waiting = true;  // still running or stopping: its report is coming
      }
    }
    if (!waiting || std::chrono::steady_clock::now() >= give_up_at) {
      return merge_cluster_reports(settings_.name, settings_.nodes, found);
    }
    std::this_thread::sleep_for(kReportPoll);
  }
}

std::string ClusterLink::handover_key() const {
  return cluster_key(settings_.name, "handed_over:" + std::to_string(settings_.nodes));
}

void ClusterLink::handed_over() { control_client_.command({"SADD", handover_key(), std::to_string(settings_.node)}); }

void ClusterLink::wait_for_handovers() {
  const std::string meta =
      control_client_.call({"GET", cluster_key(settings_.name, "meta")}, [](const RedisValue& v) { return v.text(); });
  const auto old_nodes = nlohmann::json::parse(meta, nullptr, false).value("grown_from", int64_t{0});
  bool logged = false;
  while (control_client_.call({"SCARD", handover_key()}, [](const RedisValue& v) { return v.integer(); }) < old_nodes) {
    if (!logged) {
      spdlog::warn("cluster grew to {} nodes: waiting until its {} earlier nodes are resumed with --grow",
                   settings_.nodes, old_nodes);
      logged = true;
    }
    std::this_thread::sleep_for(kReportPoll);
  }
}

}  // namespace bloomcrawl
