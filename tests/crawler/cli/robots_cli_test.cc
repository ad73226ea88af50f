// `bloomcrawl robots` end to end: runs the built binary (BLOOMCRAWL_BIN) on files it writes.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/shell_run.h"

namespace {

namespace fs = std::filesystem;

using CliRun = bloomcrawl::testing::ShellRun;

CliRun run_robots(const std::string& args) {
  return bloomcrawl::testing::run_shell(std::string(BLOOMCRAWL_BIN) + " robots " + args);
}

class RobotsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("robots_cli_test_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& content) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << content;
    return path.string();
  }
  fs::path dir_;
};

const char* kRobots =
    "User-agent: *\n"
    "Disallow: /\n"
    "\n"
    "User-agent: bloomcrawl\n"
    "Crawl-delay: 1.5\n"
    "Disallow: /private\n"
    "Allow: /private/ok\n"
    "Sitemap: https://example.com/sitemap.xml\n";

TEST_F(RobotsCli, PrintsDecisionRuleAndLinePerUrl) {
  const std::string file = write("robots.txt", kRobots);
  const CliRun r = run_robots("--agent 'bloomcrawl/1.0 (+https://example.org/bot)' --file " + file +
                              " https://example.com/private/x https://example.com/private/ok/y /public");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out,
            "disallowed\tDisallow: /private\tline 6\thttps://example.com/private/x\n"
            "allowed\tAllow: /private/ok\tline 7\thttps://example.com/private/ok/y\n"
            "allowed\t(no matching rule)\tline 0\t/public\n"
            "crawl-delay\t1.5\n"
            "sitemap\thttps://example.com/sitemap.xml\n");
}

TEST_F(RobotsCli, OtherAgentsGetTheGlobalGroup) {
  const std::string file = write("robots.txt", kRobots);
  const CliRun r = run_robots("--agent OtherBot --file " + file + " /public");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "disallowed\tDisallow: /\tline 2\t/public\nsitemap\thttps://example.com/sitemap.xml\n");
}

TEST_F(RobotsCli, JsonReport) {
  const std::string file = write("robots.txt", std::string(kRobots) + "Disallow: /caf\xE9\n");  // Latin-1 byte
  const CliRun r = run_robots("--json --agent bloomcrawl --file " + file + " /private/x /caf%E9");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["agent"], "bloomcrawl");
  ASSERT_EQ(report["results"].size(), 2u);
  EXPECT_EQ(report["results"][0]["url"], "/private/x");
  EXPECT_EQ(report["results"][0]["allowed"], false);
  EXPECT_EQ(report["results"][0]["line"], 6);
  EXPECT_EQ(report["results"][0]["rule"], "Disallow: /private");
  EXPECT_EQ(report["results"][1]["allowed"], false);
  EXPECT_EQ(report["results"][1]["line"], 9);
  EXPECT_EQ(report["crawl_delay_seconds"], 1.5);
  EXPECT_EQ(report["sitemaps"], nlohmann::json::array({"https://example.com/sitemap.xml"}));
}

TEST_F(RobotsCli, MissingFileIsAClearError) {
  const CliRun r = run_robots("--file " + (dir_ / "absent.txt").string() + " /x");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("cannot read robots.txt file"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("absent.txt"), std::string::npos) << r.out;
  const CliRun dir = run_robots("--file " + dir_.string() + " /x");
  EXPECT_EQ(dir.exit_code, 1);
  EXPECT_NE(dir.out.find("is a directory"), std::string::npos) << dir.out;
}

TEST_F(RobotsCli, OversizedFileIsParsedUpToTheCapWithANote) {
  std::string big = "User-agent: *\nDisallow: /early\n";
  big += std::string(size_t{600} * 1024, '#') + "\nDisallow: /late\n";
  const std::string file = write("big.txt", big);
  const CliRun r = run_robots("--file " + file + " /early /late");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("only the first 512000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("disallowed\tDisallow: /early\tline 2\t/early\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("allowed\t(no matching rule)\tline 0\t/late\n"), std::string::npos) << r.out;
}

}  // namespace
