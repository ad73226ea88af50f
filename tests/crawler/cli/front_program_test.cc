// The `bloomcrawl` front program (crawler/cli/front_main.cc): it runs dedup and url itself,
// without the crawler's libraries, and hands every other command line to bloomcrawl-crawler
// beside it. Runs the built programs (BLOOMCRAWL_BIN).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/shell_run.h"

namespace {

namespace fs = std::filesystem;

using FrontRun = bloomcrawl::testing::ShellRun;
using bloomcrawl::testing::run_shell;

TEST(FrontProgram, HelpListsEveryCommandInNameOrder) {
  const FrontRun run = run_shell(std::string(BLOOMCRAWL_BIN) + " --help");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  size_t last = 0;
  for (const char* name : {"crawl", "dedup", "inspect", "robots", "status", "stop", "url"}) {
    const size_t at = run.out.find("\n  " + std::string(name) + " ");
    ASSERT_NE(at, std::string::npos) << name << " missing from:\n" << run.out;
    EXPECT_GT(at, last) << name << " out of order in:\n" << run.out;
    last = at;
  }
}

TEST(FrontProgram, LoadsNoneOfTheCrawlersLibraries) {
  // What ldd prints: the shared libraries the dynamic loader maps for the program.
  const FrontRun run = run_shell("LD_TRACE_LOADED_OBJECTS=1 " + std::string(BLOOMCRAWL_BIN));
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("libxxhash"), std::string::npos) << run.out;
  for (const char* heavy : {"libcurl", "librocksdb", "libcrypto", "libhiredis", "libprometheus", "libspdlog"}) {
    EXPECT_EQ(run.out.find(heavy), std::string::npos) << heavy << " in:\n" << run.out;
  }
}

TEST(FrontProgram, HandsOtherCommandsOnWithTheirExitStatus) {
  const FrontRun run = run_shell(std::string(BLOOMCRAWL_BIN) + " inspect /nonexistent/front_program_test");
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_NE(run.out.find("bloomcrawl inspect: /nonexistent/front_program_test"), std::string::npos) << run.out;
}

TEST(FrontProgram, WithoutTheCrawlerBesideItRunsItsFiltersAndNamesWhatIsMissing) {
  const fs::path dir = fs::temp_directory_path() / ("front_program_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path alone = dir / "bloomcrawl";
  fs::copy_file(BLOOMCRAWL_BIN, alone);
  const FrontRun dedup = run_shell("printf 'a\\nb\\na\\n' | " + alone.string() + " dedup");
  EXPECT_EQ(dedup.exit_code, 0) << dedup.out;
  EXPECT_EQ(dedup.out, "a\nb\n");
  const FrontRun crawl = run_shell(alone.string() + " crawl --help");
  EXPECT_EQ(crawl.exit_code, 127) << crawl.out;
  EXPECT_NE(crawl.out.find("cannot run " + (dir / "bloomcrawl-crawler").string()), std::string::npos) << crawl.out;
  fs::remove_all(dir);
}

}  // namespace
