#include "config/key_hash.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace bloomcrawl {
namespace {

// Bump when the normalization below changes, so old checkpoints are refused rather than misread.
constexpr const char* kKeyFormatVersion = "bloomcrawl-key-v1\n";

std::uint64_t fnv1a_64(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

void collect_leaves(const nlohmann::json& value, const std::string& path, std::vector<std::string>* paths) {
  if (!value.is_object()) {
    paths->push_back(path);
    return;
  }
  for (const auto& [key, child] : value.items()) collect_leaves(child, path + "/" + key, paths);
}

std::string value_text(const nlohmann::json& root, const std::string& path) {
  nlohmann::json::json_pointer pointer(path);
  return root.contains(pointer) ? root.at(pointer).dump() : "(absent)";
}

}  // namespace

nlohmann::json key_affecting_fields(const CrawlConfig& config) {
  nlohmann::json everything = to_json(config);
  nlohmann::json canonicalization = everything["canonicalization"];
  if (config.canonicalization.strip_params) {
    std::vector<std::string> names = config.canonicalization.strip_param_names;
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    canonicalization["strip_param_names"] = names;
  } else {
    canonicalization.erase("strip_param_names");  // inert while stripping is off
  }
  nlohmann::json seen_filter = everything["seen_filter"];
  seen_filter.erase("memory_limit_mb");  // caps growth; does not change what a layer holds
  seen_filter.erase("exact");            // how a "seen" is confirmed, not what the filter holds
  return {{"canonicalization", canonicalization}, {"seen_filter", seen_filter}};
}

std::string canonical_key_hash(const CrawlConfig& config) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(fnv1a_64(kKeyFormatVersion + key_affecting_fields(config).dump())));
  return hex;
}

std::vector<ConfigDifference> key_affecting_differences(const CrawlConfig& before, const CrawlConfig& after) {
  nlohmann::json old_fields = key_affecting_fields(before);
  nlohmann::json new_fields = key_affecting_fields(after);
  std::vector<std::string> paths;
  collect_leaves(old_fields, "", &paths);
  collect_leaves(new_fields, "", &paths);
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  std::vector<ConfigDifference> differences;
  for (const std::string& path : paths) {
    std::string old_text = value_text(old_fields, path);
    std::string new_text = value_text(new_fields, path);
    if (old_text != new_text) differences.push_back({path, old_text, new_text});
  }
  return differences;
}

}  // namespace bloomcrawl
