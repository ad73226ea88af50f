// status_json() and StatusHistory: what the status page gets from a report and the samples.
#include "crawler/observe/status_json.h"

#include <string>

#include <gtest/gtest.h>

#include "crawler/observe/status_history.h"

namespace bloomcrawl {
namespace {

nlohmann::json report(uint64_t pages, uint64_t queued) {
  return {{"fetches", {{"pages_fetched", pages}, {"failures", 1}, {"status", {{"2xx", pages}, {"4xx", 0}}}}},
          {"frontier", {{"queued", queued}, {"hosts", 2}, {"in_flight", 1}}},
          {"seen_filter", {{"keys", 250}, {"capacity", 1000}, {"estimated_false_positives", 0.25}}},
          {"duplicates_avoided", {{"total", 7}, {"top_hosts", {{"b.test", 2}, {"a.test", 5}, {"c.test", 2}}}}},
          {"recent_errors", {{{"time", 1}, {"url", "http://a.test/x"}, {"error", "HTTP 404"}}}}};
}

TEST(StatusHistoryTest, RatesComeFromConsecutiveSamples) {
  StatusHistory h;
  h.add({100, 10, 5, 1});
  h.add({101, 30, 4, 1});
  h.add({103, 70, 3, 1});
  const nlohmann::json j = h.to_json();
  EXPECT_EQ(j["pages"], nlohmann::json({10, 30, 70}));
  EXPECT_EQ(j["pages_per_second"], nlohmann::json({0.0, 20.0, 20.0}));
  EXPECT_EQ(j["queued"], nlohmann::json({5, 4, 3}));
  EXPECT_DOUBLE_EQ(h.pages_per_second(2), 20.0);   // from the sample 2 s back
  EXPECT_DOUBLE_EQ(h.pages_per_second(10), 20.0);  // the oldest there is
}

TEST(StatusHistoryTest, KeepsTheLastHour) {
  StatusHistory h;
  for (size_t i = 0; i < StatusHistory::kSamples + 5; ++i) h.add({double(i), i, 0, 0});
  const nlohmann::json j = h.to_json();
  ASSERT_EQ(j["time"].size(), StatusHistory::kSamples);
  EXPECT_EQ(j["time"][0], 5.0);
}

TEST(StatusJsonTest, CarriesProgressMixHostsErrorsAndTheFilter) {
  StatusHistory h;
  h.add(status_sample(report(10, 50), 1000));
  h.add(status_sample(report(14, 48), 1002));
  const nlohmann::json s = status_json(report(14, 48), h, 1002.5, 3);
  EXPECT_EQ(s["progress"]["pages_fetched"], 14);
  EXPECT_EQ(s["progress"]["queued"], 48);
  EXPECT_DOUBLE_EQ(s["progress"]["pages_per_second"].get<double>(), 2.0);
  EXPECT_EQ(s["status_mix"]["2xx"], 14);
  EXPECT_EQ(s["status_mix"]["failed"], 1);
  EXPECT_EQ(s["top_hosts"], nlohmann::json::parse(R"([{"host":"a.test","duplicates_avoided":5},
      {"host":"b.test","duplicates_avoided":2},{"host":"c.test","duplicates_avoided":2}])"));
  EXPECT_EQ(s["recent_errors"][0]["error"], "HTTP 404");
  EXPECT_DOUBLE_EQ(s["filter"]["fill"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(s["filter"]["estimated_false_positives"].get<double>(), 0.25);
  EXPECT_FALSE(s["filter"].contains("audited_false_positives"));
  EXPECT_EQ(s["history"]["pages"], nlohmann::json({10, 14}));
}

TEST(StatusJsonTest, CarriesTheRevisitFigures) {
  nlohmann::json r = report(14, 48);
  r["revisits"] = {{"revisited", 9},      {"not_modified", 4}, {"unchanged", 2},      {"changed", 2},
                   {"gone", 1},           {"new_urls", 5},     {"bytes_saved", 8192}, {"next_due_ms", 1765000000000},
                   {"due_within_hour", 3}};
  const nlohmann::json s = status_json(r, StatusHistory(), 1002.5, 3);
  EXPECT_EQ(s["progress"]["revisited"], 9);
  EXPECT_EQ(s["progress"]["revisit_next_due_seconds"], 1765000000);
  EXPECT_EQ(s["revisits"], nlohmann::json::parse(R"({"not_modified":4,"unchanged":2,"changed":2,"gone":1,
      "new_urls":5,"bytes_saved":8192,"due_within_hour":3})"));
  // A crawl without recrawl has no "revisits" section: the figures are zeros, never missing.
  EXPECT_EQ(status_json(report(14, 48), StatusHistory(), 1002.5, 3)["revisits"]["due_within_hour"], 0);
}

TEST(StatusJsonTest, CarriesTheContentSeenFiguresAndTheRulesInForceBestEvidencedFirst) {
  nlohmann::json r = report(14, 48);
  r["content_seen"] = {{"exact_duplicates", 7},
                       {"near_duplicates", 3},
                       {"fetches_saved_by_rules", 40},
                       {"warc_bytes_saved", 65536},
                       {"learned_rules", 2},
                       {"rules", nlohmann::json::parse(R"([
                           {"host":"a.test","param":"vid","agreeing":5,"disagreeing":0,"in_force":true},
                           {"host":"a.test","param":"page","agreeing":2,"disagreeing":1,"in_force":false},
                           {"host":"b.test","param":"sort","agreeing":9,"disagreeing":0,"in_force":true}])")}};
  const nlohmann::json s = status_json(r, StatusHistory(), 1002.5, 3);
  EXPECT_EQ(s["progress"]["exact_duplicates"], 7);
  EXPECT_EQ(s["progress"]["learned_rules"], 2);
  EXPECT_EQ(s["content_seen"], nlohmann::json::parse(R"({"near_duplicates":3,"fetches_saved_by_rules":40,
      "warc_bytes_saved":65536,"rules":[{"host":"b.test","param":"sort","agreeing":9},
      {"host":"a.test","param":"vid","agreeing":5}]})"));
  // Without content_seen in the report: zeros and no rules, never missing.
  const nlohmann::json bare = status_json(report(14, 48), StatusHistory(), 1002.5, 3);
  EXPECT_EQ(bare["content_seen"]["warc_bytes_saved"], 0);
  EXPECT_EQ(bare["content_seen"]["rules"], nlohmann::json::array());
}

TEST(StatusJsonTest, ListsAtMostTheRulesItsLimitAllows) {
  nlohmann::json r = report(14, 48);
  nlohmann::json rules = nlohmann::json::array();
  for (size_t i = 0; i < kStatusRules + 5; ++i)
    rules.push_back({{"host", "h" + std::to_string(i) + ".test"}, {"param", "p"}, {"agreeing", i}, {"in_force", true}});
  r["content_seen"] = {{"rules", rules}};
  const nlohmann::json listed = status_json(r, StatusHistory(), 1002.5, 3)["content_seen"]["rules"];
  ASSERT_EQ(listed.size(), kStatusRules);
  EXPECT_EQ(listed[0]["agreeing"], kStatusRules + 4);
}

}  // namespace
}  // namespace bloomcrawl
