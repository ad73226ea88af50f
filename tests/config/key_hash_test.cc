// canonical_key_hash() changes exactly when a field that changes seen-filter keys or layout does.
#include <algorithm>
#include <functional>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "config/config.h"
#include "config/key_hash.h"

namespace bloomcrawl {
namespace {

struct Change {
  std::string path;  // the key-affecting field it changes, or "" for one that must not matter
  std::function<void(CrawlConfig&)> apply;
};

const std::vector<Change>& key_affecting_changes() {
  static const std::vector<Change> changes = {
      {"/canonicalization/sort_query", [](CrawlConfig& c) { c.canonicalization.sort_query = true; }},
      {"/canonicalization/strip_params", [](CrawlConfig& c) { c.canonicalization.strip_params = true; }},
      {"/canonicalization/strip_session_ids", [](CrawlConfig& c) { c.canonicalization.strip_session_ids = true; }},
      {"/canonicalization/lowercase_path", [](CrawlConfig& c) { c.canonicalization.lowercase_path = true; }},
      {"/canonicalization/drop_index_pages", [](CrawlConfig& c) { c.canonicalization.drop_index_pages = true; }},
      {"/seen_filter/initial_capacity", [](CrawlConfig& c) { c.seen_filter.initial_capacity *= 2; }},
      {"/seen_filter/target_fpr", [](CrawlConfig& c) { c.seen_filter.target_fpr = 1e-5; }},
      {"/seen_filter/growth_factor", [](CrawlConfig& c) { c.seen_filter.growth_factor = 4; }},
      {"/seen_filter/tightening_ratio", [](CrawlConfig& c) { c.seen_filter.tightening_ratio = 0.5; }},
  };
  return changes;
}

const std::vector<Change>& inert_changes() {
  static const std::vector<Change> changes = {
      {"", [](CrawlConfig& c) { c.seeds.urls.emplace_back("https://other.example/"); }},
      {"", [](CrawlConfig& c) { c.scope.max_pages = 10; }},
      {"", [](CrawlConfig& c) { c.scope.exclude = {"x"}; }},
      {"", [](CrawlConfig& c) { c.politeness.delay_ms = 5; }},
      {"", [](CrawlConfig& c) { c.fetch.threads = 8; }},
      {"", [](CrawlConfig& c) { c.seen_filter.memory_limit_mb = 4096; }},
      {"", [](CrawlConfig& c) { c.output.directory = "elsewhere"; }},
      {"", [](CrawlConfig& c) { c.checkpoint.keep = 9; }},
      {"", [](CrawlConfig& c) { c.audit = true; }},
      // The names only matter while stripping is on.
      {"", [](CrawlConfig& c) { c.canonicalization.strip_param_names = {"sid"}; }},
  };
  return changes;
}

CrawlConfig with_seed() {
  CrawlConfig config;
  config.seeds.urls = {"https://example.com/"};
  return config;
}

TEST(KeyHash, IsSixteenHexDigitsAndStable) {
  std::string hash = canonical_key_hash(with_seed());
  EXPECT_EQ(hash.size(), 16u);
  EXPECT_EQ(hash.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(hash, canonical_key_hash(parse_config(to_json(with_seed()).dump(), "x")));
  // Pinned: checkpoints written by earlier builds store this value, so it must not drift with
  // the build or the machine. If the key format changes on purpose, bump kKeyFormatVersion.
  EXPECT_EQ(hash, "a3dc5cf42ce44ce3");
}

TEST(KeyHash, EveryKeyAffectingFieldChangesItAndIsReported) {
  const CrawlConfig base = with_seed();
  std::set<std::string> covered;
  for (const Change& change : key_affecting_changes()) {
    CrawlConfig changed = base;
    change.apply(changed);
    EXPECT_NE(canonical_key_hash(changed), canonical_key_hash(base)) << change.path;
    std::vector<ConfigDifference> differences = key_affecting_differences(base, changed);
    bool reported = std::any_of(differences.begin(), differences.end(),
                                [&](const ConfigDifference& d) { return d.path == change.path; });
    EXPECT_TRUE(reported) << change.path;
    covered.insert(change.path);
  }
  // Every hashed field has a change above: a new key-affecting field must be added here too.
  CrawlConfig stripping = base;
  stripping.canonicalization.strip_params = true;
  const nlohmann::json hashed = key_affecting_fields(stripping);
  for (const auto& [section, fields] : hashed.items()) {
    for (const auto& [name, value] : fields.items()) {
      std::string path = "/" + section + "/" + name;
      if (path != "/canonicalization/strip_param_names") {
        EXPECT_TRUE(covered.count(path)) << path;
      }
    }
  }
}

TEST(KeyHash, OtherFieldsLeaveItUnchanged) {
  const CrawlConfig base = with_seed();
  for (size_t i = 0; i < inert_changes().size(); ++i) {
    CrawlConfig changed = base;
    inert_changes()[i].apply(changed);
    EXPECT_EQ(canonical_key_hash(changed), canonical_key_hash(base)) << "inert change #" << i;
    EXPECT_TRUE(key_affecting_differences(base, changed).empty()) << "inert change #" << i;
  }
}

TEST(KeyHash, StrippedParamNamesCountAsASetWhileStrippingIsOn) {
  CrawlConfig base = with_seed();
  base.canonicalization.strip_params = true;
  base.canonicalization.strip_param_names = {"utm_source", "gclid"};
  CrawlConfig reordered = base;
  reordered.canonicalization.strip_param_names = {"gclid", "utm_source", "gclid"};
  EXPECT_EQ(canonical_key_hash(reordered), canonical_key_hash(base));
  CrawlConfig added = base;
  added.canonicalization.strip_param_names.emplace_back("fbclid");
  EXPECT_NE(canonical_key_hash(added), canonical_key_hash(base));
  std::vector<ConfigDifference> differences = key_affecting_differences(base, added);
  ASSERT_EQ(differences.size(), 1u);
  EXPECT_EQ(differences[0].path, "/canonicalization/strip_param_names");
  EXPECT_EQ(differences[0].before, R"(["gclid","utm_source"])");
  EXPECT_EQ(differences[0].after, R"(["fbclid","gclid","utm_source"])");
}

TEST(KeyHash, DifferencesShowBothValues) {
  CrawlConfig before = with_seed();
  CrawlConfig after = before;
  after.canonicalization.sort_query = true;
  after.seen_filter.target_fpr = 1e-5;
  std::vector<ConfigDifference> differences = key_affecting_differences(before, after);
  EXPECT_EQ(differences, (std::vector<ConfigDifference>{{"/canonicalization/sort_query", "false", "true"},
                                                        {"/seen_filter/target_fpr", "1e-06", "1e-05"}}));
}

TEST(KeyHash, TurningStrippingOnReportsTheNamesAppearing) {
  CrawlConfig before = with_seed();
  CrawlConfig after = before;
  after.canonicalization.strip_params = true;
  std::vector<ConfigDifference> differences = key_affecting_differences(before, after);
  ASSERT_EQ(differences.size(), 2u);
  EXPECT_EQ(differences[0].path, "/canonicalization/strip_param_names");
  EXPECT_EQ(differences[0].before, "(absent)");
  EXPECT_EQ(differences[1].path, "/canonicalization/strip_params");
}

}  // namespace
}  // namespace bloomcrawl
