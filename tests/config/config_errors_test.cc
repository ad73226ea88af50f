// Every class of config mistake yields a ConfigError naming the file, the JSON path and the
// problem, in the documented "FILE: /path: problem" shape.
#include <filesystem>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config.h"

namespace bloomcrawl {
namespace {

using ::testing::HasSubstr;

// Parses `json` as "cfg.json" and returns the error it must raise.
ConfigError error_of(const std::string& json) {
  try {
    parse_config(json, "cfg.json");
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "no ConfigError for: " << json;
  return {"", "", ""};
}

// A config with one seed plus `extra` members of the top-level object.
std::string with_seed(const std::string& extra) {
  return R"({"seeds": {"urls": ["https://example.com/"]})" + (extra.empty() ? "" : ", " + extra) + "}";
}

TEST(ConfigErrors, UnknownKeySuggestsNearestName) {
  ConfigError e = error_of(with_seed(R"("fetch": {"thread": 4})"));
  EXPECT_EQ(e.file(), "cfg.json");
  EXPECT_EQ(e.json_path(), "/fetch/thread");
  EXPECT_STREQ(e.what(), "cfg.json: /fetch/thread: unknown key; did you mean /fetch/threads?");
}

TEST(ConfigErrors, UnknownTopLevelSectionSuggestsNearestName) {
  EXPECT_STREQ(error_of(with_seed(R"("politness": {})")).what(),
               "cfg.json: /politness: unknown key; did you mean /politeness?");
}

TEST(ConfigErrors, KeyInWrongSectionPointsToItsSection) {
  EXPECT_STREQ(error_of(with_seed(R"("fetch": {"delay_ms": 10})")).what(),
               "cfg.json: /fetch/delay_ms: unknown key; did you mean /politeness/delay_ms?");
}

TEST(ConfigErrors, UnknownKeyFarFromAnyNameListsValidKeys) {
  ConfigError e = error_of(with_seed(R"("output": {"zzzzzzzz": 1})"));
  EXPECT_EQ(e.json_path(), "/output/zzzzzzzz");
  EXPECT_THAT(
      e.what(),
      HasSubstr("unknown key (valid keys here: directory, pages_jsonl, edges, report_json, warc, report_interval_s)"));
}

TEST(ConfigErrors, WrongTypeNamesExpectedAndActual) {
  EXPECT_STREQ(error_of(with_seed(R"("fetch": {"threads": "4"})")).what(),
               "cfg.json: /fetch/threads: expected integer, got string");
  EXPECT_STREQ(error_of(with_seed(R"("fetch": {"threads": 2.5})")).what(),
               "cfg.json: /fetch/threads: expected integer, got number 2.5");
  EXPECT_STREQ(error_of(with_seed(R"("audit": "yes")")).what(), "cfg.json: /audit: expected boolean, got string");
  EXPECT_STREQ(error_of(with_seed(R"("scope": [])")).what(), "cfg.json: /scope: expected object, got array");
  EXPECT_STREQ(error_of(with_seed(R"("scope": {"include": ["a", 3]})")).what(),
               "cfg.json: /scope/include/1: expected string, got number 3");
  EXPECT_STREQ(error_of("[1]").what(), "cfg.json: the top level must be a JSON object, got array");
}

TEST(ConfigErrors, WholeFloatIsAcceptedForIntegers) {
  CrawlConfig config = parse_config(with_seed(R"("scope": {"max_pages": 1e6})"), "cfg.json");
  EXPECT_EQ(config.scope.max_pages, 1000000u);
}

TEST(ConfigErrors, OutOfRangeNamesLimitAndValue) {
  EXPECT_STREQ(error_of(with_seed(R"("fetch": {"threads": 0})")).what(),
               "cfg.json: /fetch/threads: must be between 1 and 256, got 0");
  EXPECT_STREQ(error_of(with_seed(R"("seen_filter": {"target_fpr": 0.5})")).what(),
               "cfg.json: /seen_filter/target_fpr: must be in (0, 0.5), got 0.5");
  EXPECT_STREQ(error_of(with_seed(R"("seen_filter": {"growth_factor": 1.2})")).what(),
               "cfg.json: /seen_filter/growth_factor: must be in [1.5, 16], got 1.2");
  EXPECT_STREQ(error_of(with_seed(R"("politeness": {"delay_ms": -1})")).what(),
               "cfg.json: /politeness/delay_ms: must be >= 0, got -1");
  EXPECT_STREQ(error_of(with_seed(R"("fetch": {"max_body_bytes": 100})")).what(),
               "cfg.json: /fetch/max_body_bytes: must be >= 1024, got 100");
  EXPECT_STREQ(error_of(with_seed(R"("scope": {"max_pages": -5})")).what(),
               "cfg.json: /scope/max_pages: must be >= 0, got -5");
  EXPECT_STREQ(error_of(with_seed(R"("fetch": {"connect_timeout_ms": 3000000000})")).what(),
               "cfg.json: /fetch/connect_timeout_ms: must be between 1 and 2147483647, got 3000000000");
  EXPECT_STREQ(error_of(with_seed(R"("scope": {"max_pages": 18446744073709551615})")).what(),
               "cfg.json: /scope/max_pages: must be at most 9223372036854775807");
}

// config/README.md seen_filter.memory_limit_mb and output.warc.max_file_mb: in bytes they must fit
// 64 bits, so values past 2^30 MB are refused rather than wrapped.
TEST(ConfigErrors, MegabyteLimitsAreBoundedSoTheirBytesFit64Bits) {
  EXPECT_STREQ(error_of(with_seed(R"("seen_filter": {"memory_limit_mb": 17592186044416})")).what(),
               "cfg.json: /seen_filter/memory_limit_mb: must be <= 1073741824, got 17592186044416");
  EXPECT_STREQ(error_of(with_seed(R"("output": {"warc": {"max_file_mb": 17592186044416}})")).what(),
               "cfg.json: /output/warc/max_file_mb: must be between 1 and 1073741824, got 17592186044416");
}

TEST(ConfigErrors, FrontierMemoryLimitIsAtLeastOneMegabyte) {
  EXPECT_STREQ(error_of(with_seed(R"("frontier": {"memory_limit_mb": 0})")).what(),
               "cfg.json: /frontier/memory_limit_mb: must be between 1 and 1073741824, got 0");
  EXPECT_EQ(parse_config(with_seed(R"("frontier": {"memory_limit_mb": 1})"), "cfg.json").frontier.memory_limit_mb, 1u);
}

TEST(ConfigErrors, ValueNotInAllowedSetListsChoices) {
  EXPECT_STREQ(error_of(with_seed(R"("logging": {"progress": "sometimes"})")).what(),
               "cfg.json: /logging/progress: must be one of auto, always, never, got \"sometimes\"");
  EXPECT_STREQ(error_of(with_seed(R"("scope": {"link_kinds": ["a", "link"]})")).what(),
               "cfg.json: /scope/link_kinds/1: must be one of a, area, frame, iframe, meta-refresh, canonical, "
               "alternate, stylesheet, img, script, got \"link\"");
}

TEST(ConfigErrors, BadRegexIsNamedWithItsIndex) {
  ConfigError e = error_of(with_seed(R"("scope": {"exclude": ["\\.pdf$", "(unclosed"]})"));
  EXPECT_EQ(e.json_path(), "/scope/exclude/1");
  EXPECT_THAT(e.what(), HasSubstr("cfg.json: /scope/exclude/1: invalid regex \"(unclosed\": "));
}

TEST(ConfigErrors, RegexThatWouldExplodeWhenCompiledIsRefused) {
  EXPECT_THAT(error_of(with_seed(R"("scope": {"include": ["(a{1000}){1000}"]})")).what(),
              HasSubstr("/scope/include/0: regex \"(a{1000}){1000}\" repeats too much"));
}

TEST(ConfigErrors, BadCidrSaysWhatIsWrong) {
  EXPECT_STREQ(error_of(with_seed(R"("fetch": {"allowed_ranges": ["127.0.0.0/8", "10.0.0.1/8"]})")).what(),
               "cfg.json: /fetch/allowed_ranges/1: invalid CIDR \"10.0.0.1/8\": host bits set past the prefix; "
               "did you mean 10.0.0.0/8?");
  EXPECT_STREQ(error_of(with_seed(R"("fetch": {"allowed_ranges": ["10.0.0.0/33"]})")).what(),
               "cfg.json: /fetch/allowed_ranges/0: invalid CIDR \"10.0.0.0/33\": prefix length must be a number "
               "from 0 to 32");
  EXPECT_THAT(error_of(with_seed(R"("fetch": {"allowed_ranges": ["fd00:::1/8"]})")).what(),
              HasSubstr("/fetch/allowed_ranges/0: invalid CIDR \"fd00:::1/8\": not an IPv6 address"));
  EXPECT_THAT(error_of(with_seed(R"("fetch": {"allowed_ranges": ["010.0.0.0/8"]})")).what(),
              HasSubstr("not an IPv4 address"));
}

TEST(ConfigErrors, JsonSyntaxErrorHasLineAndColumn) {
  ConfigError e = error_of("{\n  \"seeds\": {\"urls\": [\"https://example.com/\"]},\n  \"audit\": tru\n}");
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.column(), 15);  // the character after "tru", where the parser gave up
  EXPECT_THAT(e.what(), HasSubstr("cfg.json:3:15: JSON syntax error: "));
  EXPECT_THAT(e.what(), HasSubstr("invalid literal"));
}

TEST(ConfigErrors, NumberTooLargeForADoubleIsAnError) {
  EXPECT_STREQ(error_of(with_seed(R"("seen_filter": {"target_fpr": 1e999})")).what(),
               "cfg.json: invalid JSON: number overflow parsing '1e999'");
}

TEST(ConfigErrors, EmptyTextIsASyntaxError) {
  EXPECT_THAT(error_of("").what(), HasSubstr("cfg.json:1:1: JSON syntax error: "));
}

TEST(ConfigErrors, RepeatedKeyIsRefused) {
  EXPECT_STREQ(error_of(with_seed(R"("fetch": {"threads": 2, "threads": 8})")).what(),
               "cfg.json: /fetch/threads: key appears more than once in its object");
  // Same name in different objects is fine.
  EXPECT_NO_THROW(
      parse_config(with_seed(R"("output": {"directory": "a"}, "checkpoint": {"directory": "b"})"), "cfg.json"));
}

TEST(ConfigErrors, CommentsAreAllowed) {
  CrawlConfig config = parse_config("// crawl of example.com\n" + with_seed(R"(/* why */ "audit": true)"), "c");
  EXPECT_TRUE(config.audit);
}

TEST(ConfigErrors, MissingFileNamesPath) {
  try {
    load_config("/nonexistent/dir/crawl.json");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/dir/crawl.json: cannot read config file: No such file or directory");
  }
}

TEST(ConfigErrors, EndlessFileIsRefusedAtTheSizeLimit) {
  if (!std::filesystem::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero";
  try {
    load_config("/dev/zero");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "/dev/zero: config file is larger than 16777216 bytes");
  }
}

TEST(ConfigErrors, DirectoryInsteadOfFileIsNamed) {
  EXPECT_THROW(
      {
        try {
          load_config(std::filesystem::temp_directory_path());
        } catch (const ConfigError& e) {
          EXPECT_THAT(e.what(), HasSubstr("cannot read config file: is a directory"));
          throw;
        }
      },
      ConfigError);
}

TEST(ConfigErrors, NoSeedsIsRefused) {
  EXPECT_STREQ(error_of("{}").what(), "cfg.json: /seeds: no seed URLs: set /seeds/urls or /seeds/file");
  EXPECT_STREQ(error_of(R"({"seeds": {"urls": []}})").what(),
               "cfg.json: /seeds: no seed URLs: set /seeds/urls or /seeds/file");
  EXPECT_NO_THROW(parse_config("{}", "cfg.json", LoadOptions{.require_seeds = false}));
}

TEST(ConfigErrors, BadSeedUrlIsNamed) {
  EXPECT_STREQ(error_of(R"({"seeds": {"urls": ["https://ok.example/", "example.com"]}})").what(),
               "cfg.json: /seeds/urls/1: not an absolute http(s) URL: \"example.com\"");
  EXPECT_STREQ(error_of(R"({"seeds": {"urls": ["http:///path"]}})").what(),
               "cfg.json: /seeds/urls/0: URL \"http:///path\" has no host");
}

class ConfigSeedsFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("config_seeds_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return dir_ / name;
  }

  std::filesystem::path dir_;
};

TEST_F(ConfigSeedsFile, BadLineIsNamedByFileAndLine) {
  std::filesystem::path seeds = write("seeds.txt", "# seeds\nhttps://a.example/\n\nmailto:x@example.com\n");
  std::filesystem::path config = write("crawl.json", R"({"seeds": {"file": "seeds.txt"}})");
  try {
    load_config(config);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), seeds.string());
    EXPECT_EQ(e.line(), 4);
    EXPECT_EQ(std::string(e.what()), seeds.string() + ":4: not an absolute http(s) URL: \"mailto:x@example.com\"");
  }
}

TEST_F(ConfigSeedsFile, IsReadRelativeToTheConfigFile) {
  write("seeds.txt", "\xEF\xBB\xBFhttps://a.example/\r\n  # comment\r\nhttps://b.example/x#frag   # trailing\n");
  CrawlConfig config =
      load_config(write("crawl.json", R"({"seeds": {"urls": ["https://c.example/"], "file": "seeds.txt"}})"));
  EXPECT_EQ(config.seeds.file_urls, (std::vector<std::string>{"https://a.example/", "https://b.example/x#frag"}));
  EXPECT_EQ(all_seed_urls(config),
            (std::vector<std::string>{"https://c.example/", "https://a.example/", "https://b.example/x#frag"}));
  EXPECT_EQ(config.seeds.file, (dir_ / "seeds.txt").string());
  // The effective config names the file absolutely, so it reloads the same from anywhere.
  EXPECT_EQ(parse_config(to_json(config).dump(), "elsewhere/report.json"), config);
}

TEST_F(ConfigSeedsFile, OverlongLineIsRefusedNotSwallowed) {
  std::filesystem::path seeds = write("seeds.txt", "https://a.example/\n" + std::string(100000, 'x') + "\n");
  try {
    load_config(write("crawl.json", R"({"seeds": {"file": "seeds.txt"}})"));
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), seeds.string() + ":2: line longer than 65536 bytes");
  }
}

TEST_F(ConfigSeedsFile, LastLineWithoutNewlineCounts) {
  write("seeds.txt", "https://a.example/\n\nhttps://b.example/");
  CrawlConfig config = load_config(write("crawl.json", R"({"seeds": {"file": "seeds.txt"}})"));
  EXPECT_EQ(config.seeds.file_urls, (std::vector<std::string>{"https://a.example/", "https://b.example/"}));
}

TEST_F(ConfigSeedsFile, MissingSeedsFileIsNamed) {
  std::filesystem::path config = write("crawl.json", R"({"seeds": {"file": "nope.txt"}})");
  try {
    load_config(config);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              (dir_ / "nope.txt").string() + ": cannot read seeds file: No such file or directory");
  }
}

TEST_F(ConfigSeedsFile, EmptySeedsFileAloneIsNoSeeds) {
  write("seeds.txt", "# nothing yet\n");
  EXPECT_THROW(load_config(write("crawl.json", R"({"seeds": {"file": "seeds.txt"}})")), ConfigError);
}

TEST(ConfigErrors, CrossFieldConflictIsNamed) {
  EXPECT_STREQ(error_of(with_seed(R"("fetch": {"connect_timeout_ms": 5000, "total_timeout_ms": 1000})")).what(),
               "cfg.json: /fetch/connect_timeout_ms: must not exceed /fetch/total_timeout_ms (1000), got 5000");
}

TEST(ConfigErrors, ValidateConfigChecksValuesSetInCode) {
  CrawlConfig config;
  config.seeds.urls = {"https://example.com/"};
  EXPECT_NO_THROW(validate_config(config, "--flags"));
  config.fetch.threads = 0;
  try {
    validate_config(config, "--flags");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "--flags: /fetch/threads: must be between 1 and 256, got 0");
  }
  config.fetch.threads = 4;
  config.scope.exclude = {"[a-"};
  EXPECT_THROW(validate_config(config, "--flags"), ConfigError);
}

}  // namespace
}  // namespace bloomcrawl
