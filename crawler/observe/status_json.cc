#include "crawler/observe/status_json.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace bloomcrawl {
namespace {

using Pointer = nlohmann::json::json_pointer;

// A count: a non-negative integer, else 0.
uint64_t count_of(const nlohmann::json& n) {
  return n.is_number_integer() && n.get<int64_t>() >= 0 ? n.get<uint64_t>() : 0;
}

uint64_t count(const nlohmann::json& r, const char* pointer) {
  const Pointer p(pointer);
  return r.contains(p) ? count_of(r.at(p)) : 0;
}

double real(const nlohmann::json& r, const char* pointer) {
  const Pointer p(pointer);
  return r.contains(p) && r.at(p).is_number() ? r.at(p).get<double>() : 0.0;
}

// The report's duplicates_avoided.top_hosts (an object, host: count), as a list, most first.
nlohmann::json top_hosts(const nlohmann::json& r) {
  std::vector<std::pair<std::string, uint64_t>> hosts;
  const Pointer p("/duplicates_avoided/top_hosts");
  if (r.contains(p) && r.at(p).is_object()) {
    for (const auto& [host, n] : r.at(p).items()) hosts.emplace_back(host, count_of(n));
  }
  std::sort(hosts.begin(), hosts.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < hosts.size() && i < kStatusTopHosts; ++i)
    out.push_back({{"host", hosts[i].first}, {"duplicates_avoided", hosts[i].second}});
  return out;
}

// The report's content_seen.rules in force (host, parameter, agreeing pairs), the best evidenced
// first, at most kStatusRules of them: a crawl of many hosts may learn a rule on each.
nlohmann::json rules_in_force(const nlohmann::json& r) {
  struct Rule {
    std::string host, param;
    uint64_t agreeing;
  };
  std::vector<Rule> rules;
  const Pointer p("/content_seen/rules");
  if (r.contains(p) && r.at(p).is_array()) {
    for (const nlohmann::json& rule : r.at(p)) {
      if (!rule.is_object() || !rule.value("in_force", false)) continue;
      const nlohmann::json host = rule.value("host", nlohmann::json());
      const nlohmann::json param = rule.value("param", nlohmann::json());
      if (!host.is_string() || !param.is_string()) continue;
      rules.push_back(
          {host.get<std::string>(), param.get<std::string>(), count_of(rule.value("agreeing", nlohmann::json()))});
    }
  }
  std::sort(rules.begin(), rules.end(), [](const Rule& a, const Rule& b) {
    return a.agreeing != b.agreeing ? a.agreeing > b.agreeing : std::tie(a.host, a.param) < std::tie(b.host, b.param);
  });
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < rules.size() && i < kStatusRules; ++i)
    out.push_back({{"host", rules[i].host}, {"param", rules[i].param}, {"agreeing", rules[i].agreeing}});
  return out;
}

}  // namespace

StatusHistory::Sample status_sample(const nlohmann::json& report, double unix_seconds) {
  const nlohmann::json& r = report;
  return {unix_seconds, count(r, "/fetches/pages_fetched"), count(r, "/frontier/queued"),
          count(r, "/frontier/in_flight")};
}

nlohmann::json status_json(const nlohmann::json& report, const StatusHistory& history, double unix_seconds,
                           double uptime_seconds) {
  const nlohmann::json& r = report;
  const uint64_t keys = count(r, "/seen_filter/keys");
  const uint64_t capacity = count(r, "/seen_filter/capacity");
  nlohmann::json filter = {{"keys", keys},
                           {"capacity", capacity},
                           {"fill", capacity > 0 ? double(keys) / double(capacity) : 0.0},
                           {"layers", count(r, "/seen_filter/layers")},
                           {"bytes", count(r, "/seen_filter/bytes")},
                           {"estimated_fpr", real(r, "/seen_filter/estimated_fpr")},
                           {"estimated_false_positives", real(r, "/seen_filter/estimated_false_positives")}};
  if (r.contains(Pointer("/audit/false_positives")))
    filter["audited_false_positives"] = count(r, "/audit/false_positives");
  return {
      {"time", unix_seconds},
      {"uptime_seconds", uptime_seconds},
      {"progress",
       {{"pages_fetched", count(r, "/fetches/pages_fetched")},
        {"pages_per_second", history.pages_per_second(10)},
        {"max_pages", count(r, "/limits/max_pages")},
        {"queued", count(r, "/frontier/queued")},
        {"hosts", count(r, "/frontier/hosts")},
        {"ready_hosts", count(r, "/frontier/ready_hosts")},
        {"in_flight", count(r, "/frontier/in_flight")},
        {"bytes_received", count(r, "/fetches/bytes_received")},
        {"links_found", count(r, "/links/discovered")},
        {"links_new", count(r, "/links/new")},
        {"duplicates_avoided", count(r, "/duplicates_avoided/total")},
        {"revisited", count(r, "/revisits/revisited")},
        {"revisit_next_due_seconds", count(r, "/revisits/next_due_ms") / 1000},
        {"exact_duplicates", count(r, "/content_seen/exact_duplicates")},
        {"near_duplicates", count(r, "/content_seen/near_duplicates")},
        {"learned_rules", count(r, "/content_seen/learned_rules")}}},
      {"status_mix",
       {{"2xx", count(r, "/fetches/status/2xx")},
        {"3xx", count(r, "/fetches/status/3xx")},
        {"4xx", count(r, "/fetches/status/4xx")},
        {"5xx", count(r, "/fetches/status/5xx")},
        {"failed", count(r, "/fetches/failures")}}},
      {"top_hosts", top_hosts(r)},
      {"recent_errors", r.value("recent_errors", nlohmann::json::array())},
      {"filter", std::move(filter)},
      {"revisits",
       {{"not_modified", count(r, "/revisits/not_modified")},
        {"unchanged", count(r, "/revisits/unchanged")},
        {"changed", count(r, "/revisits/changed")},
        {"gone", count(r, "/revisits/gone")},
        {"new_urls", count(r, "/revisits/new_urls")},
        {"bytes_saved", count(r, "/revisits/bytes_saved")},
        {"due_within_hour", count(r, "/revisits/due_within_hour")}}},
      {"content_seen",
       {{"near_duplicates", count(r, "/content_seen/near_duplicates")},
        {"fetches_saved_by_rules", count(r, "/content_seen/fetches_saved_by_rules")},
        {"warc_bytes_saved", count(r, "/content_seen/warc_bytes_saved")},
        {"rules", rules_in_force(r)}}},
      {"history", history.to_json()},
  };
}

}  // namespace bloomcrawl
