#include "crawler/cluster/cluster_report.h"

#include <algorithm>

namespace bloomcrawl {
namespace {

constexpr int kFormat = 1;  // of cluster-report.json; docs/cluster.md

// Adds every integer leaf of `part` into `total`, key by key; arrays, text and fractions are
// per-node facts (a layer's fill, a rate's sample), not sums.
void add_counters(nlohmann::json& total, const nlohmann::json& part) {
  if (!part.is_object()) return;
  if (!total.is_object()) total = nlohmann::json::object();
  for (const auto& [key, value] : part.items()) {
    if (value.is_object()) {
      if (!total.contains(key)) total[key] = nlohmann::json::object();
      add_counters(total[key], value);
    } else if (value.is_number_unsigned()) {
      total[key] = total.value(key, uint64_t{0}) + value.get<uint64_t>();
    } else if (value.is_number_integer()) {
      total[key] = total.value(key, int64_t{0}) + value.get<int64_t>();
    }
  }
}

}  // namespace

nlohmann::json merge_cluster_reports(const std::string& name, uint32_t nodes,
                                     const std::map<uint32_t, nlohmann::json>& reports) {
  nlohmann::json totals = nlohmann::json::object();
  nlohmann::json per_node = nlohmann::json::array();
  nlohmann::json missing = nlohmann::json::array();
  double seconds = 0;
  double pages_per_second = 0;
  for (uint32_t node = 0; node < nodes; ++node) {
    auto it = reports.find(node);
    if (it == reports.end() || !it->second.is_object()) {
      missing.push_back(node);
      continue;
    }
    const nlohmann::json& r = it->second;
    for (const char* section : {"fetches", "links", "outcomes", "redirects", "duplicates_avoided"}) {
      if (r.contains(section)) add_counters(totals[section], r[section]);
    }
    const nlohmann::json sf = r.value("seen_filter", nlohmann::json::object());
    const nlohmann::json fr = r.value("frontier", nlohmann::json::object());
    const nlohmann::json cl = r.value("cluster", nlohmann::json::object());
    const nlohmann::json cr = r.value("crawl", nlohmann::json::object());
    add_counters(totals["seen_filter"],
                 {{"keys", sf.value("keys", uint64_t{0})}, {"bytes", sf.value("bytes", uint64_t{0})}});
    add_counters(totals["frontier"],
                 {{"queued", fr.value("queued", uint64_t{0})}, {"hosts", fr.value("hosts", uint64_t{0})}});
    add_counters(totals["cluster"], {{"batches_sent", cl.value("batches_sent", uint64_t{0})},
                                     {"urls_sent", cl.value("urls_sent", uint64_t{0})},
                                     {"batches_received", cl.value("batches_received", uint64_t{0})}});
    add_counters(totals["crawl"], {{"pages_this_run", cr.value("pages_this_run", uint64_t{0})}});
    seconds = std::max(seconds, cr.value("seconds", 0.0));
    pages_per_second += cr.value("pages_per_second", 0.0);
    per_node.push_back({{"node", node}, {"report", r}});
  }
  totals["crawl"]["seconds"] = seconds;
  totals["crawl"]["pages_per_second"] = pages_per_second;
  return {{"format", kFormat},  {"name", name},     {"nodes", nodes},
          {"missing", missing}, {"totals", totals}, {"per_node", per_node}};
}

}  // namespace bloomcrawl
