// `bloomcrawl crawl` as an operator runs it: Ctrl-C stops with a final report, and a mistaken
// config is refused with a message that names the field.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/spawn.h"
#include "tests/support/test_web.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

class CrawlCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("crawl_cli_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  static std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Starts `bloomcrawl args...` with stdout and stderr to files in dir_ ("stdout", "stderr", or
  // with a `tag` "TAG.stdout", "TAG.stderr").
  pid_t spawn(std::vector<std::string> args, const std::string& tag = "") {
    args.insert(args.begin(), BLOOMCRAWL_BIN);
    const std::string prefix = tag.empty() ? "" : tag + ".";
    const pid_t pid = testing::spawn_to_files(std::move(args), dir_ / (prefix + "stdout"), dir_ / (prefix + "stderr"));
    EXPECT_GT(pid, 0);
    return pid;
  }
  static int wait_exit(pid_t pid) { return testing::wait_exit_code(pid); }
  int run(std::vector<std::string> args, const std::string& tag = "") { return wait_exit(spawn(std::move(args), tag)); }
  static std::unique_ptr<testweb::TestWeb> start_web_without_trap() {
    testweb::TestWebOptions o;
    o.trap = false;  // only a depth limit ends the trap
    auto web = std::make_unique<testweb::TestWeb>(o);
    web->start();
    return web;
  }

  fs::path dir_;
};

TEST_F(CrawlCliTest, CtrlCStopsCleanlyWithAFinalReport) {
  testweb::TestWebOptions o;
  o.response_delay = std::chrono::milliseconds(200);
  testweb::TestWeb web(o);
  web.start();
  fs::path config =
      write("c.json", nlohmann::json{{"seeds", {{"urls", {web.seed_url()}}}},
                                     {"scope", {{"allowed_hosts", web.options().hosts}, {"max_depth", 10}}},
                                     {"politeness", {{"delay_ms", 0}, {"concurrency_per_host", 2}}},
                                     {"fetch", {{"allowed_ranges", {"127.0.0.0/8"}}}},
                                     {"output", {{"directory", (dir_ / "out").string()}}}}
                          .dump());
  pid_t pid = spawn({"crawl", "--config", config.string()});
  // Interrupt once pages are being fetched (the server sees them), not after a guessed time.
  ASSERT_TRUE(web.wait_for_in_flight(2, std::chrono::seconds(30)));
  kill(pid, SIGINT);
  EXPECT_EQ(wait_exit(pid), 0) << read(dir_ / "stderr");
  nlohmann::json report = nlohmann::json::parse(read(dir_ / "out/report.json"));
  EXPECT_EQ(report["crawl"]["stopped_by"], "signal");
  EXPECT_LT(report["fetches"]["pages_fetched"].get<uint64_t>(), web.ground_truth(10).size());
  EXPECT_NE(read(dir_ / "stdout").find("crawl signal"), std::string::npos) << "the human summary is printed";
  web.stop();
  EXPECT_EQ(web.summary().duplicate_fetches, 0u);
}

// pages.jsonl on a full disk (/dev/full answers every write with ENOSPC): the crawl stops at
// its first record, says which file and why, and exits non-zero without claiming "done". A
// resume once the space is back (the link removed) completes the crawl with a record per page.
TEST_F(CrawlCliTest, AFullDiskStopsTheCrawlWithAnErrorAndTheResumeCompletesIt) {
  std::unique_ptr<testweb::TestWeb> web = start_web_without_trap();
  const fs::path out = dir_ / "out";
  fs::create_directories(out);
  fs::create_symlink("/dev/full", out / "pages.jsonl");
  const fs::path config =
      write("c.json", nlohmann::json{{"seeds", {{"urls", {web->seed_url()}}}},
                                     {"scope", {{"allowed_hosts", web->options().hosts}, {"max_depth", -1}}},
                                     {"politeness", {{"delay_ms", 0}, {"concurrency_per_host", 2}}},
                                     {"fetch", {{"allowed_ranges", {"127.0.0.0/8"}}}},
                                     {"output", {{"directory", out.string()}}},
                                     {"checkpoint", {{"directory", (dir_ / "ckpt").string()}}},
                                     {"logging", {{"progress", "never"}}}}
                          .dump());
  const std::vector<std::string> crawl = {"crawl", "--config", config.string()};
  EXPECT_EQ(run(crawl), 1);
  const std::string err = read(dir_ / "stderr");
  EXPECT_NE(err.find((out / "pages.jsonl").string() + ": write failed: No space left on device"), std::string::npos)
      << err;
  const std::string summary = read(dir_ / "stdout");
  EXPECT_EQ(summary.find("crawl done"), std::string::npos) << summary;
  EXPECT_NE(summary.find("crawl stopped by an error"), std::string::npos) << summary;
  nlohmann::json report = nlohmann::json::parse(read(out / "report.json"));
  EXPECT_EQ(report["crawl"]["stopped_by"], "error");

  fs::remove(out / "pages.jsonl");
  EXPECT_EQ(run({"crawl", "--config", config.string(), "--resume"}), 0) << read(dir_ / "stderr");
  std::map<std::string, int> records;
  std::ifstream in(out / "pages.jsonl");
  for (std::string line; std::getline(in, line);) ++records[nlohmann::json::parse(line)["url"].get<std::string>()];
  for (const std::string& url : web->ground_truth(web->site_depth())) EXPECT_EQ(records[url], 1) << url;
  web->stop();
}

// report.json is written whole through a temporary file; when that cannot be created the crawl
// has fetched everything but its report is missing, which is no success either.
TEST_F(CrawlCliTest, AReportThatCannotBeWrittenIsANonZeroExit) {
  std::unique_ptr<testweb::TestWeb> web = start_web_without_trap();
  const fs::path out = dir_ / "out";
  fs::create_directories(out / "report.json.tmp");  // a directory where the temporary file goes
  EXPECT_EQ(run({"crawl", "--seed", web->seed_url(), "--output", out.string(), "--allow-range", "127.0.0.0/8",
                 "--delay-ms", "0", "--progress", "never"}),
            1);
  EXPECT_NE(read(dir_ / "stderr").find("cannot write the report"), std::string::npos) << read(dir_ / "stderr");
  EXPECT_NE(read(dir_ / "stdout").find("crawl stopped by an error: report not written"), std::string::npos)
      << read(dir_ / "stdout");
  EXPECT_FALSE(fs::exists(out / "report.json"));
  web->stop();
}

TEST_F(CrawlCliTest, ASecondProcessOnTheSameDirectoriesIsRefusedNamingTheHolder) {
  testweb::TestWebOptions o;
  o.response_delay = std::chrono::milliseconds(200);
  testweb::TestWeb web(o);
  web.start();
  const fs::path checkpoint = dir_ / "checkpoint";
  const fs::path out = dir_ / "out";
  fs::path config =
      write("c.json", nlohmann::json{{"seeds", {{"urls", {web.seed_url()}}}},
                                     {"scope", {{"allowed_hosts", web.options().hosts}, {"max_depth", 10}}},
                                     {"politeness", {{"delay_ms", 0}, {"concurrency_per_host", 2}}},
                                     {"fetch", {{"allowed_ranges", {"127.0.0.0/8"}}}},
                                     {"checkpoint", {{"directory", checkpoint.string()}}},
                                     {"output", {{"directory", out.string()}}}}
                          .dump());
  const pid_t first = spawn({"crawl", "--config", config.string()}, "first");
  // Fetching pages: its directories are locked (before it read or wrote either).
  ASSERT_TRUE(web.wait_for_in_flight(2, std::chrono::seconds(30)));
  const std::string holder = "in use by process " + std::to_string(first);

  EXPECT_EQ(run({"crawl", "--resume", checkpoint.string(), "--progress", "never"}, "resume"), 1);
  const std::string resume_err = read(dir_ / "resume.stderr");
  EXPECT_NE(resume_err.find(checkpoint.string() + ": " + holder), std::string::npos) << resume_err;

  // A new crawl elsewhere, but writing the first one's output directory.
  EXPECT_EQ(run({"crawl", "--seed", web.seed_url(), "--output", out.string(), "--checkpoint-dir",
                 (dir_ / "other").string(), "--allow-range", "127.0.0.0/8", "--progress", "never"},
                "fresh"),
            1);
  const std::string fresh_err = read(dir_ / "fresh.stderr");
  EXPECT_NE(fresh_err.find(out.string() + ": " + holder), std::string::npos) << fresh_err;

  kill(first, SIGINT);
  EXPECT_EQ(wait_exit(first), 0) << read(dir_ / "first.stderr");
  const nlohmann::json report = nlohmann::json::parse(read(out / "report.json"));
  EXPECT_EQ(report["crawl"]["stopped_by"], "signal");
  EXPECT_EQ(report["checkpoint"]["last_failure"], "");
  EXPECT_TRUE(fs::exists(out / "LOCK"));
  EXPECT_TRUE(fs::exists(checkpoint / "LOCK"));
  // Released at exit: the crawl resumes (the lock is taken again and the checkpoint read), and
  // stops at once, its page limit already reached.
  EXPECT_EQ(run({"crawl", "--resume", checkpoint.string(), "--max-pages", "1", "--progress", "never"}, "again"), 0)
      << read(dir_ / "again.stderr");
  web.stop();
  EXPECT_EQ(web.summary().duplicate_fetches, 0u) << "only the first process crawled";
}

TEST_F(CrawlCliTest, CheckpointAndOutputInOneDirectoryTakeOneLock) {
  testweb::TestWebOptions o;
  o.trap = false;
  testweb::TestWeb web(o);
  web.start();
  const fs::path both = dir_ / "both";
  const std::vector<std::string> args{"crawl",       "--seed",        web.seed_url(),
                                      "--output",    both.string(),   "--max-pages",
                                      "3",           "--allow-range", "127.0.0.0/8",
                                      "--progress",  "never",         "--checkpoint-dir",
                                      both.string(), "--delay-ms",    "0"};
  EXPECT_EQ(run(args), 0) << read(dir_ / "stderr");
  EXPECT_TRUE(fs::exists(both / "report.json"));
  EXPECT_TRUE(fs::exists(both / "CURRENT"));
  EXPECT_EQ(run({"crawl", "--resume", both.string(), "--progress", "never"}), 0) << read(dir_ / "stderr");
}

TEST_F(CrawlCliTest, MalformedJsonNamesLineAndColumn) {
  fs::path config = write("bad.json", "{\n  \"seeds\": {\"urls\": [\"http://a.example/\"]},\n  \"scope\": {,}\n}\n");
  EXPECT_EQ(run({"crawl", "--config", config.string()}), 1);
  std::string err = read(dir_ / "stderr");
  EXPECT_NE(err.find("bad.json:3:"), std::string::npos) << err;
}

TEST_F(CrawlCliTest, UnknownKeyIsRefusedWithTheNearestValidName) {
  fs::path config = write("typo.json", R"({"seeds": {"urls": ["http://a.example/"]}, "fetch": {"thread": 4}})");
  EXPECT_EQ(run({"crawl", "--config", config.string()}), 1);
  std::string err = read(dir_ / "stderr");
  EXPECT_NE(err.find("/fetch/thread"), std::string::npos) << err;
  EXPECT_NE(err.find("/fetch/threads"), std::string::npos) << err;
}

TEST_F(CrawlCliTest, ImpossibleValueNamesTheField) {
  fs::path config =
      write("range.json", R"({"seeds": {"urls": ["http://a.example/"]}, "seen_filter": {"target_fpr": 2}})");
  EXPECT_EQ(run({"crawl", "--config", config.string()}), 1);
  EXPECT_NE(read(dir_ / "stderr").find("/seen_filter/target_fpr"), std::string::npos);
}

TEST_F(CrawlCliTest, LoopbackIsRefusedWithoutAnAllowedRange) {
  testweb::TestWebOptions o;
  o.trap = false;
  testweb::TestWeb web(o);
  web.start();
  fs::path out = dir_ / "out";
  EXPECT_EQ(run({"crawl", "--seed", web.seed_url(), "--output", out.string(), "--progress", "never"}), 0)
      << read(dir_ / "stderr");
  web.stop();
  EXPECT_EQ(web.summary().requests, 0u) << "the SSRF guard blocks before anything is sent";
  nlohmann::json report = nlohmann::json::parse(read(out / "report.json"));
  EXPECT_GE(report["fetches"]["failures_by_outcome"]["blocked_address"].get<uint64_t>(), 1u);
}

}  // namespace
}  // namespace bloomcrawl
