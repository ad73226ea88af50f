// Which config fields decide the seen filter's keys and layout, so a resumed crawl can refuse a
// config change that would make its checkpointed filter answer for different keys (pages would be
// refetched or, worse, silently skipped).
//
// The key-affecting fields are /canonicalization/* (they change the canonical URL that is hashed;
// /canonicalization/strip_param_names only while strip_params is on, in any order) and
// /seen_filter/* except memory_limit_mb (they change the filter's layers). Nothing else is.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"

namespace bloomcrawl {

// The key-affecting fields in the normalized form that is hashed, e.g. for a checkpoint manifest.
nlohmann::json key_affecting_fields(const CrawlConfig& config);

// 16 lowercase hex digits; equal for two configs exactly when key_affecting_fields() are equal.
// Stable across runs, builds and machines (FNV-1a 64 over a versioned canonical JSON text).
std::string canonical_key_hash(const CrawlConfig& config);

struct ConfigDifference {
  std::string path;    // e.g. "/canonicalization/sort_query"
  std::string before;  // JSON text of the value, "(absent)" if the field does not exist there
  std::string after;
  bool operator==(const ConfigDifference&) const = default;
};

// The key-affecting fields that differ, sorted by path, for "cannot resume: ..." messages.
std::vector<ConfigDifference> key_affecting_differences(const CrawlConfig& before, const CrawlConfig& after);

}  // namespace bloomcrawl
