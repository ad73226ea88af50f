// The recrawl section (config/README.md "recrawl", docs/recrawl.md): defaults, the order of the
// three intervals, continuous only with enabled, and the field named in every error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config.h"
#include "config/key_hash.h"

namespace bloomcrawl {
namespace {

using ::testing::HasSubstr;

constexpr char kSeeds[] = R"({"seeds": {"urls": ["https://example.com/"]}, "recrawl": )";

RecrawlConfig recrawl_of(const std::string& recrawl_json) {
  return parse_config(kSeeds + recrawl_json + "}", "cfg.json").recrawl;
}

std::string recrawl_error_of(const std::string& recrawl_json) {
  try {
    recrawl_of(recrawl_json);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no ConfigError)";
}

TEST(RecrawlConfig, DefaultsAreOffWithAWeekBetweenAnHourAndNinetyDays) {
  const RecrawlConfig defaults = parse_config(R"({"seeds": {"urls": ["https://example.com/"]}})", "cfg.json").recrawl;
  EXPECT_FALSE(defaults.enabled);
  EXPECT_EQ(defaults.default_interval_s, 604800);
  EXPECT_EQ(defaults.min_interval_s, 3600);
  EXPECT_EQ(defaults.max_interval_s, 7776000);
  EXPECT_TRUE(defaults.adaptive);
  EXPECT_FALSE(defaults.continuous);
}

TEST(RecrawlConfig, EveryFieldIsReadAndWrittenBack) {
  const RecrawlConfig read = recrawl_of(
      R"({"enabled": true, "default_interval_s": 120, "min_interval_s": 2, "max_interval_s": 600,
          "adaptive": false, "continuous": true})");
  EXPECT_EQ(read, (RecrawlConfig{true, 120, 2, 600, false, true}));
  CrawlConfig config;
  config.seeds.urls = {"https://example.com/"};
  config.recrawl = read;
  EXPECT_EQ(parse_config(to_json(config).dump(), "cfg.json"), config);
}

TEST(RecrawlConfig, TheIntervalsMustBeOrderedAndTheErrorNamesTheField) {
  EXPECT_THAT(recrawl_error_of(R"({"min_interval_s": 700000, "max_interval_s": 600000})"),
              HasSubstr("cfg.json: /recrawl/min_interval_s: must not exceed /recrawl/max_interval_s (600000)"));
  EXPECT_THAT(recrawl_error_of(R"({"default_interval_s": 60})"),
              HasSubstr("cfg.json: /recrawl/default_interval_s: must lie within /recrawl/min_interval_s and "
                        "/recrawl/max_interval_s (3600..7776000), got 60"));
  EXPECT_THAT(recrawl_error_of(R"({"default_interval_s": 9000000})"), HasSubstr("/recrawl/default_interval_s:"));
  EXPECT_EQ(recrawl_of(R"({"default_interval_s": 60, "min_interval_s": 60, "max_interval_s": 60})").max_interval_s, 60);
}

TEST(RecrawlConfig, RangesTypesAndUnknownKeysAreRefusedByPath) {
  EXPECT_THAT(recrawl_error_of(R"({"min_interval_s": 0})"), HasSubstr("/recrawl/min_interval_s: must be"));
  EXPECT_THAT(recrawl_error_of(R"({"max_interval_s": -1})"), HasSubstr("/recrawl/max_interval_s: must be"));
  EXPECT_THAT(recrawl_error_of(R"({"adaptive": "yes"})"), HasSubstr("/recrawl/adaptive: expected boolean"));
  EXPECT_THAT(recrawl_error_of(R"({"max_interval": 60})"),
              HasSubstr("/recrawl/max_interval: unknown key; did you mean /recrawl/max_interval_s?"));
}

TEST(RecrawlConfig, ContinuousNeedsEnabled) {
  EXPECT_THAT(recrawl_error_of(R"({"continuous": true})"),
              HasSubstr("cfg.json: /recrawl/continuous: needs /recrawl/enabled"));
  EXPECT_TRUE(recrawl_of(R"({"continuous": true, "enabled": true})").continuous);
}

TEST(RecrawlConfig, ValidateConfigChecksTheSameRulesInCode) {
  CrawlConfig config;
  config.seeds.urls = {"https://example.com/"};
  config.recrawl.min_interval_s = config.recrawl.max_interval_s + 1;
  try {
    validate_config(config, "cli");
    FAIL() << "accepted min_interval_s above max_interval_s";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cli: /recrawl/"));
  }
}

TEST(RecrawlConfig, IsNotKeyAffecting) {
  CrawlConfig before;
  CrawlConfig after;
  after.recrawl.enabled = true;
  after.recrawl.max_interval_s = 86400;
  EXPECT_EQ(canonical_key_hash(before), canonical_key_hash(after));
}

}  // namespace
}  // namespace bloomcrawl
