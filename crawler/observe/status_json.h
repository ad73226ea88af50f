// status_json(): the document the status page polls at /status.json, from a
// Crawler::live_report() and the last hour's samples. Field by field: docs/metrics.md.
#pragma once

#include <nlohmann/json.hpp>

#include "crawler/observe/status_history.h"

namespace bloomcrawl {

// Hosts listed in top_hosts.
inline constexpr size_t kStatusTopHosts = 10;
// Learned parameter rules listed in content_seen.rules.
inline constexpr size_t kStatusRules = 50;

// A history sample of the report, taken at `unix_seconds`.
StatusHistory::Sample status_sample(const nlohmann::json& report, double unix_seconds);

nlohmann::json status_json(const nlohmann::json& report, const StatusHistory& history, double unix_seconds,
                           double uptime_seconds);

}  // namespace bloomcrawl
