// The merged cluster report (docs/cluster.md, "The cluster report"): every node's final report
// side by side, and their totals. Each node writes it beside its own report.json as
// cluster-report.json, from the reports the nodes stored in Redis (bloomcrawl:NAME:reports).
//
// Contract: `totals` sums, over the nodes present, every integer counter of the report sections
// that count work (fetches, links, outcomes, redirects, duplicates_avoided), the seen filter's keys
// and bytes, the frontier's queued URLs and hosts, the cluster's batches and URLs, and each node's
// pages this run and pages per second; `seconds` is the longest node's. A node with no report from
// this run is listed in `missing`, so totals over a partial cluster never pass for the whole.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace bloomcrawl {

nlohmann::json merge_cluster_reports(const std::string& name, uint32_t nodes,
                                     const std::map<uint32_t, nlohmann::json>& reports);

}  // namespace bloomcrawl
