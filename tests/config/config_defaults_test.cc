// Defaults, the shipped examples, and to_json round trips.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "config/config.h"
#include "config/schema_paths.h"
#include "config/seeds_file.h"

namespace bloomcrawl {
namespace {

const std::filesystem::path kExamples = std::filesystem::path(BLOOMCRAWL_SOURCE_DIR) / "config" / "examples";

CrawlConfig round_trip(const CrawlConfig& config) {
  return parse_config(to_json(config).dump(2), "<round trip>", LoadOptions{.require_seeds = false});
}

TEST(ConfigDefaults, EmptySectionsGetEveryDefault) {
  CrawlConfig config = parse_config(R"({"seeds": {"urls": ["https://example.com/"]}})", "cfg.json");
  CrawlConfig expected;
  expected.seeds.urls = {"https://example.com/"};
  EXPECT_EQ(config, expected);
  EXPECT_EQ(config.fetch.threads, 2);
  EXPECT_EQ(config.fetch.transfers_per_thread, 64);
  EXPECT_EQ(config.fetch.max_redirects, 5);
  EXPECT_TRUE(config.scope.same_host);
  EXPECT_EQ(config.scope.max_url_length, 2048);
  EXPECT_EQ(config.scope.link_kinds,
            (std::vector<std::string>{"a", "area", "frame", "iframe", "meta-refresh", "canonical"}));
  EXPECT_EQ(config.politeness.robots_agent, "bloomcrawl");
  EXPECT_TRUE(config.politeness.obey_robots);
  EXPECT_DOUBLE_EQ(config.seen_filter.target_fpr, 1e-6);
  EXPECT_DOUBLE_EQ(config.seen_filter.growth_factor, 2.0);
  EXPECT_EQ(config.output.directory, "crawl-out");
  EXPECT_TRUE(config.checkpoint.directory.empty());
  EXPECT_FALSE(config.audit);
  EXPECT_EQ(config.logging.level, "info");
}

TEST(ConfigDefaults, PresentSectionKeepsDefaultsOfAbsentFields) {
  CrawlConfig config = parse_config(
      R"({"seeds": {"urls": ["https://example.com/"]}, "politeness": {"delay_ms": 250, "backoff": {"park_s": 5}}})",
      "cfg.json");
  EXPECT_EQ(config.politeness.delay_ms, 250);
  EXPECT_EQ(config.politeness.backoff.park_s, 5);
  EXPECT_EQ(config.politeness.backoff.error_budget, BackoffConfig{}.error_budget);
  EXPECT_EQ(config.politeness.user_agent, PolitenessConfig{}.user_agent);
}

TEST(ConfigDefaults, DefaultsPassValidation) {
  CrawlConfig config;
  EXPECT_NO_THROW(validate_config(config, "defaults", LoadOptions{.require_seeds = false}));
}

TEST(ConfigExamples, EveryExampleLoads) {
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kExamples)) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().string());
    CrawlConfig config;
    ASSERT_NO_THROW(config = load_config(entry.path()));
    EXPECT_FALSE(all_seed_urls(config).empty());
    ++loaded;
  }
  EXPECT_GE(loaded, 3);
}

TEST(ConfigExamples, FullExampleSetsEveryField) {
  nlohmann::json full =
      nlohmann::json::parse(config_detail::read_text_file(kExamples / "full.json", "example", 1 << 20));
  for (const config_detail::KeyPath& key : config_detail::all_key_paths()) {
    EXPECT_TRUE(full.contains(nlohmann::json::json_pointer(key.path))) << key.path << " missing from full.json";
  }
}

TEST(ConfigExamples, DemoAllowsLoopbackAndSeedsLocalTestWeb) {
  CrawlConfig config = load_config(kExamples / "demo.json");
  EXPECT_EQ(config.fetch.allowed_ranges, std::vector<std::string>{"127.0.0.0/8"});
  for (const std::string& url : all_seed_urls(config)) EXPECT_EQ(url.rfind("http://127.0.0.", 0), 0u) << url;
}

TEST(ConfigRoundTrip, DefaultsAndExamplesSurviveToJson) {
  EXPECT_EQ(round_trip(CrawlConfig{}), CrawlConfig{});
  for (const char* name : {"full.json", "demo.json", "real-site.json"}) {
    CrawlConfig config = load_config(kExamples / name);
    EXPECT_EQ(round_trip(config), config) << name;
  }
}

TEST(ConfigRoundTrip, NonDefaultValuesInEverySectionSurvive) {
  CrawlConfig config;
  config.seeds.urls = {"https://a.example/", "http://b.example:8080/x?y=1"};
  config.scope.allowed_domains = {"example.org"};
  config.scope.same_host = false;
  config.scope.exclude = {"\\?sort="};
  config.scope.max_depth = -1;
  config.scope.max_pages = 123456789012ull;
  config.scope.link_kinds = {"a", "img", "script"};
  config.canonicalization.sort_query = true;
  config.canonicalization.strip_param_names = {"ref"};
  config.politeness.delay_ms = 0;
  config.politeness.backoff.on_429_503 = false;
  config.fetch.allowed_ranges = {"10.0.0.0/8", "fd00::/8", "::1"};
  config.fetch.max_body_bytes = 5ull << 30;
  config.seen_filter.target_fpr = 1.0 / (1 << 22);
  config.seen_filter.tightening_ratio = 0.9;
  config.output.warc.enabled = true;
  config.checkpoint.directory = "ckpt";
  config.audit = true;
  config.logging.progress = "never";
  EXPECT_EQ(round_trip(config), config);
}

TEST(ConfigRoundTrip, ToJsonWritesSeedsFileNotItsUrls) {
  CrawlConfig config;
  config.seeds.urls = {"https://a.example/"};
  config.seeds.file_urls = {"https://b.example/"};
  nlohmann::json json = to_json(config);
  EXPECT_EQ(json["seeds"], (nlohmann::json{{"urls", {"https://a.example/"}}, {"file", ""}}));
}

}  // namespace
}  // namespace bloomcrawl
