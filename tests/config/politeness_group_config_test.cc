// politeness.group_by and its deprecated alias group_by_ip: read, defaulted, refused when they
// disagree, and written back so that a saved config loads the same (checkpoint manifests).
#include <string>

#include <gtest/gtest.h>

#include "config/config.h"

namespace bloomcrawl {
namespace {

CrawlConfig parse_politeness(const std::string& politeness) {
  return parse_config(R"({"seeds": {"urls": ["https://example.com/"]}, "politeness": {)" + politeness + "}}",
                      "cfg.json");
}

std::string politeness_error_of(const std::string& politeness) {
  try {
    parse_politeness(politeness);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(PolitenessGroupConfig, DefaultsToHostAndReadsEachChoice) {
  EXPECT_EQ(parse_politeness("").politeness.group_by, "host");
  for (const std::string& choice : kPolitenessGroupings) {
    EXPECT_EQ(parse_politeness(R"("group_by": ")" + choice + "\"").politeness.group_by, choice);
  }
  EXPECT_EQ(politeness_error_of(R"("group_by": "subdomain")"),
            "cfg.json: /politeness/group_by: must be one of host, domain, ip, got \"subdomain\"");
}

TEST(PolitenessGroupConfig, DeprecatedGroupByIpAloneMeansIp) {
  const CrawlConfig config = parse_politeness(R"("group_by_ip": true)");
  EXPECT_EQ(config.politeness.group_by, "ip");
  EXPECT_EQ(parse_politeness(R"("group_by_ip": true, "group_by": "ip")").politeness.group_by, "ip");
  EXPECT_EQ(parse_politeness(R"("group_by_ip": false, "group_by": "domain")").politeness.group_by, "domain");
  // The effective config, as a checkpoint manifest saves it, loads the same.
  EXPECT_EQ(parse_config(to_json(config).dump(), "saved.json"), config);
}

TEST(PolitenessGroupConfig, GroupByIpContradictingGroupByIsRefused) {
  EXPECT_EQ(politeness_error_of(R"("group_by_ip": true, "group_by": "domain")"),
            "cfg.json: /politeness/group_by_ip: is a deprecated alias of /politeness/group_by \"ip\" and "
            "contradicts /politeness/group_by \"domain\": set only /politeness/group_by");
  EXPECT_NE(politeness_error_of(R"("group_by_ip": true, "group_by": "host")"), "no error");
}

TEST(PolitenessGroupConfig, ValidateConfigRefusesTheContradictionSetInCode) {
  CrawlConfig config;
  config.seeds.urls = {"https://example.com/"};
  config.politeness.group_by_ip = true;
  EXPECT_THROW(validate_config(config, "--flags"), ConfigError);
  config.politeness.group_by = "ip";
  EXPECT_NO_THROW(validate_config(config, "--flags"));
}

}  // namespace
}  // namespace bloomcrawl
