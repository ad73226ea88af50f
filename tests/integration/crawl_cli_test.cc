// `bloomcrawl crawl` as an operator runs it: Ctrl-C stops with a final report, and a mistaken
// config is refused with a message that names the field.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

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
  // Responses 200 ms late: a crawl is still fetching when the test acts on it.
  static std::unique_ptr<testweb::TestWeb> start_slow_web() {
    testweb::TestWebOptions o;
    o.response_delay = std::chrono::milliseconds(200);
    auto web = std::make_unique<testweb::TestWeb>(o);
    web->start();
    return web;
  }

  fs::path dir_;
};

TEST_F(CrawlCliTest, CtrlCStopsCleanlyWithAFinalReport) {
  std::unique_ptr<testweb::TestWeb> web = start_slow_web();
  fs::path config =
      write("c.json", nlohmann::json{{"seeds", {{"urls", {web->seed_url()}}}},
                                     {"scope", {{"allowed_hosts", web->options().hosts}, {"max_depth", 10}}},
                                     {"politeness", {{"delay_ms", 0}, {"concurrency_per_host", 2}}},
                                     {"fetch", {{"allowed_ranges", {"127.0.0.0/8"}}}},
                                     {"output", {{"directory", (dir_ / "out").string()}}}}
                          .dump());
  pid_t pid = spawn({"crawl", "--config", config.string()});
  // Interrupt once pages are being fetched (the server sees them), not after a guessed time.
  ASSERT_TRUE(web->wait_for_in_flight(2, std::chrono::seconds(30)));
  kill(pid, SIGINT);
  EXPECT_EQ(wait_exit(pid), 0) << read(dir_ / "stderr");
  nlohmann::json report = nlohmann::json::parse(read(dir_ / "out/report.json"));
  EXPECT_EQ(report["crawl"]["stopped_by"], "signal");
  EXPECT_LT(report["fetches"]["pages_fetched"].get<uint64_t>(), web->ground_truth(10).size());
  EXPECT_NE(read(dir_ / "stdout").find("crawl signal"), std::string::npos) << "the human summary is printed";
  web->stop();
  EXPECT_EQ(web->summary().duplicate_fetches, 0u);
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
  std::unique_ptr<testweb::TestWeb> web = start_slow_web();
  const fs::path checkpoint = dir_ / "checkpoint";
  const fs::path out = dir_ / "out";
  fs::path config =
      write("c.json", nlohmann::json{{"seeds", {{"urls", {web->seed_url()}}}},
                                     {"scope", {{"allowed_hosts", web->options().hosts}, {"max_depth", 10}}},
                                     {"politeness", {{"delay_ms", 0}, {"concurrency_per_host", 2}}},
                                     {"fetch", {{"allowed_ranges", {"127.0.0.0/8"}}}},
                                     {"checkpoint", {{"directory", checkpoint.string()}}},
                                     {"output", {{"directory", out.string()}}}}
                          .dump());
  const pid_t first = spawn({"crawl", "--config", config.string()}, "first");
  // Fetching pages: its directories are locked (before it read or wrote either).
  ASSERT_TRUE(web->wait_for_in_flight(2, std::chrono::seconds(30)));
  const std::string holder = "in use by process " + std::to_string(first);

  EXPECT_EQ(run({"crawl", "--resume", checkpoint.string(), "--progress", "never"}, "resume"), 1);
  const std::string resume_err = read(dir_ / "resume.stderr");
  EXPECT_NE(resume_err.find(checkpoint.string() + ": " + holder), std::string::npos) << resume_err;

  // A new crawl elsewhere, but writing the first one's output directory.
  EXPECT_EQ(run({"crawl", "--seed", web->seed_url(), "--output", out.string(), "--checkpoint-dir",
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
  web->stop();
  EXPECT_EQ(web->summary().duplicate_fetches, 0u) << "only the first process crawled";
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

// config/README.md seeds.file: `crawl --resume DIR` without --config reads the seeds file again (the
// CLI help says --resume DIR is enough), so a file-seeded crawl stopped by its page limit resumes
// with a higher --max-pages and fetches on.
TEST_F(CrawlCliTest, SeedsFileResumeWithoutConfigKeepsTheSeeds) {
  std::unique_ptr<testweb::TestWeb> web = start_web_without_trap();
  const fs::path checkpoint = dir_ / "checkpoint";
  const fs::path out = dir_ / "out";
  write("seeds.txt", "# the test web\n" + web->seed_url() + "\n");
  const fs::path config =
      write("c.json", nlohmann::json{{"seeds", {{"file", "seeds.txt"}}},
                                     {"scope", {{"allowed_hosts", web->options().hosts}, {"max_pages", 3}}},
                                     {"politeness", {{"delay_ms", 0}}},
                                     {"fetch", {{"allowed_ranges", {"127.0.0.0/8"}}}},
                                     {"checkpoint", {{"directory", checkpoint.string()}}},
                                     {"output", {{"directory", out.string()}}}}
                          .dump());
  ASSERT_EQ(run({"crawl", "--config", config.string(), "--progress", "never"}, "first"), 0)
      << read(dir_ / "first.stderr");
  EXPECT_EQ(nlohmann::json::parse(read(out / "report.json"))["crawl"]["stopped_by"], "page_limit");
  EXPECT_EQ(run({"crawl", "--resume", checkpoint.string(), "--max-pages", "20", "--progress", "never"}, "resume"), 0)
      << read(dir_ / "resume.stderr");
  web->stop();
  const nlohmann::json report = nlohmann::json::parse(read(out / "report.json"));
  EXPECT_EQ(report["crawl"]["stopped_by"], "page_limit");
  EXPECT_EQ(web->summary().page_requests, 20u);
  EXPECT_EQ(web->summary().duplicate_fetches, 0u);
}

// `bloomcrawl status DIR` of a running crawl, from its output or its checkpoint directory, then
// of the same crawl stopped by a signal; report.json is rewritten while the crawl runs.
TEST_F(CrawlCliTest, StatusOfARunningCrawlThenOfItsStop) {
  std::unique_ptr<testweb::TestWeb> web = start_slow_web();
  const fs::path out = dir_ / "out";
  const fs::path checkpoint = dir_ / "ckpt";
  const fs::path config =
      write("c.json", nlohmann::json{{"seeds", {{"urls", {web->seed_url()}}}},
                                     {"scope", {{"allowed_hosts", web->options().hosts}, {"max_depth", 10}}},
                                     {"politeness", {{"delay_ms", 0}, {"concurrency_per_host", 2}}},
                                     {"fetch", {{"allowed_ranges", {"127.0.0.0/8"}}}},
                                     {"output", {{"directory", out.string()}, {"report_interval_s", 1}}},
                                     {"checkpoint", {{"directory", checkpoint.string()}}},
                                     {"logging", {{"progress", "never"}}}}
                          .dump());
  const pid_t crawl = spawn({"crawl", "--config", config.string()}, "crawl");
  ASSERT_TRUE(web->wait_for_in_flight(2, std::chrono::seconds(30)));

  ASSERT_EQ(run({"status", out.string(), "--json"}, "running"), 0) << read(dir_ / "running.stderr");
  const nlohmann::json running = nlohmann::json::parse(read(dir_ / "running.stdout"));
  EXPECT_EQ(running["state"], "running");
  EXPECT_EQ(running["alive"], true);
  EXPECT_EQ(running["pid"], crawl);
  EXPECT_EQ(running["lock_pid"], crawl);
  EXPECT_EQ(running["checkpoint_directory"], checkpoint.string());
  EXPECT_LT(running["age_seconds"].get<double>(), 30.0);
  ASSERT_EQ(run({"status", checkpoint.string()}, "human"), 0) << read(dir_ / "human.stderr");
  const std::string human = read(dir_ / "human.stdout");
  EXPECT_NE(human.find("crawl running: pid " + std::to_string(crawl) + " running"), std::string::npos) << human;
  EXPECT_NE(human.find("over the last 10 s"), std::string::npos) << human;

  // report.json mid-crawl, its first rewrite a second after the start: waited for, not slept on.
  nlohmann::json interim;
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
       !interim.is_object() && std::chrono::steady_clock::now() < deadline;
       std::this_thread::sleep_for(std::chrono::milliseconds(20))) {
    if (fs::exists(out / "report.json")) interim = nlohmann::json::parse(read(out / "report.json"));
  }
  ASSERT_TRUE(interim.is_object()) << "no report.json while the crawl ran";
  EXPECT_EQ(interim["crawl"]["running"], true);
  EXPECT_FALSE(interim["crawl"].contains("stopped_by"));
  EXPECT_EQ(interim["config"]["output"]["report_interval_s"], 1);

  kill(crawl, SIGINT);
  EXPECT_EQ(wait_exit(crawl), 0) << read(dir_ / "crawl.stderr");
  ASSERT_EQ(run({"status", out.string(), "--json"}, "stopped"), 0) << read(dir_ / "stopped.stderr");
  const nlohmann::json stopped = nlohmann::json::parse(read(dir_ / "stopped.stdout"));
  EXPECT_EQ(stopped["state"], "stopped");
  EXPECT_EQ(stopped["stopped_by"], "signal");
  EXPECT_EQ(stopped["clean_exit"], true);
  EXPECT_EQ(stopped["alive"], false);
  const nlohmann::json report = nlohmann::json::parse(read(out / "report.json"));
  EXPECT_EQ(report["crawl"]["stopped_by"], "signal");
  EXPECT_FALSE(report["crawl"].contains("running"));
  EXPECT_EQ(stopped["pages"], report["fetches"]["pages_fetched"]);
  ASSERT_EQ(run({"status", checkpoint.string()}, "resume_hint"), 0);
  EXPECT_NE(read(dir_ / "resume_hint.stdout").find("bloomcrawl crawl --resume " + checkpoint.string()),
            std::string::npos)
      << read(dir_ / "resume_hint.stdout");

  EXPECT_EQ(run({"status", (dir_ / "nothing").string()}, "missing"), 1);
  EXPECT_NE(read(dir_ / "missing.stderr").find("no status file"), std::string::npos);
  // The cluster mode (docs/cluster.md) with no Redis there: a clear error, not a crash.
  EXPECT_EQ(run({"status", "--cluster", "redis://127.0.0.1:1/c"}, "cluster"), 1);
  EXPECT_NE(read(dir_ / "cluster.stderr").find("cannot connect to redis://127.0.0.1:1"), std::string::npos);
  web->stop();
}

// logging.progress "always" off a terminal: a progress line in the log each interval, the last
// one at the end with the final count.
TEST_F(CrawlCliTest, ProgressOffATerminalGoesToTheLogEachInterval) {
  testweb::TestWebOptions o;
  o.trap = false;
  o.response_delay = std::chrono::milliseconds(300);
  testweb::TestWeb web(o);
  web.start();
  const fs::path log = dir_ / "crawl.log";
  const fs::path config =
      write("c.json",
            nlohmann::json{{"seeds", {{"urls", {web.seed_url()}}}},
                           {"scope", {{"allowed_hosts", web.options().hosts}, {"max_pages", 18}}},
                           {"politeness", {{"delay_ms", 0}, {"concurrency_per_host", 1}}},
                           {"fetch", {{"allowed_ranges", {"127.0.0.0/8"}}}},
                           {"output", {{"directory", (dir_ / "out").string()}}},
                           {"logging", {{"progress", "always"}, {"progress_interval_s", 1}, {"file", log.string()}}}}
                .dump());
  // 18 pages, one at a time per host, 300 ms each: the crawl lasts well over the interval.
  ASSERT_EQ(run({"crawl", "--config", config.string()}), 0) << read(dir_ / "stderr");
  std::vector<std::string> lines;
  std::istringstream in(read(log));
  for (std::string line; std::getline(in, line);) {
    if (line.find("progress: ") != std::string::npos) lines.push_back(line);
  }
  ASSERT_GE(lines.size(), 2u) << read(log);
  const nlohmann::json report = nlohmann::json::parse(read(dir_ / "out/report.json"));
  const std::string final_count = "progress: " + report["fetches"]["pages_fetched"].dump() + " pages ";
  EXPECT_NE(lines.back().find(final_count), std::string::npos) << lines.back();
  EXPECT_EQ(read(dir_ / "stderr").find("\033[K"), std::string::npos) << "no terminal control codes off a terminal";
  const std::string summary = read(dir_ / "stdout");
  EXPECT_NE(summary.find("bits per key of its capacity of " + report["seen_filter"]["capacity"].dump()),
            std::string::npos)
      << summary;
  web.stop();
}

// config/README.md, Errors: no silent fallback. A flag's out-of-range value is refused naming the
// flag, before anything runs; --log-level takes the 7 levels of logging.level.
TEST_F(CrawlCliTest, OutOfRangeFlagsAreErrorsNamingTheFlag) {
  const std::vector<std::vector<std::string>> bad = {
      {"--max-depth", "-5"}, {"--delay-ms", "-1"},       {"--threads", "0"},   {"--fpr", "0"},
      {"--max-pages", "-1"}, {"--log-level", "verbose"}, {"--progress", "on"}, {"--nodes", "0"}};
  int i = 0;
  for (const std::vector<std::string>& flag : bad) {
    const std::string tag = "bad" + std::to_string(i++);
    EXPECT_NE(run({"crawl", "--seed", "http://127.0.0.1:1/", flag[0], flag[1]}, tag), 0) << flag[0];
    EXPECT_NE(read(dir_ / (tag + ".stderr")).find(flag[0]), std::string::npos)
        << flag[0] << ": " << read(dir_ / (tag + ".stderr"));
  }
  EXPECT_EQ(run({"crawl", "--help"}, "help"), 0);
  EXPECT_NE(read(dir_ / "help.stdout").find("trace, debug, info, warn, error, critical or off"), std::string::npos);
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
