// The hang watchdog (hang_watchdog.cc) on a test that hangs: this program runs itself on a
// disabled test that blocks forever, with the watchdog's limit at one second. The hung run must
// print its threads' stacks, the hung test's among them, and abort.
#include <signal.h>
#include <unistd.h>

#include <climits>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/spawn.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

TEST(HangWatchdog, DISABLED_BlocksForever) {
  std::mutex mu;
  std::condition_variable never;
  std::unique_lock<std::mutex> lock(mu);
  never.wait(lock, [] { return false; });
}

TEST(HangWatchdog, PrintsTheHungTestsStacksAndAborts) {
  char self[PATH_MAX] = {};
  ASSERT_GT(::readlink("/proc/self/exe", self, sizeof(self) - 1), 0);
  testing::TempDir dir;
  const std::string err = (dir.path() / "stderr").string();
  const pid_t pid =
      testing::spawn_to_files({"/usr/bin/env", "BLOOMCRAWL_TEST_HANG_SECONDS=1", self,
                               "--gtest_also_run_disabled_tests", "--gtest_filter=HangWatchdog.DISABLED_BlocksForever"},
                              "/dev/null", err);
  ASSERT_GT(pid, 0);
  const int code = testing::wait_exit_code(pid);
  std::stringstream text;
  text << std::ifstream(err).rdbuf();
  EXPECT_EQ(code, 128 + SIGABRT) << text.str();
  EXPECT_THAT(text.str(), ::testing::HasSubstr("hang watchdog: the test is still running after 1 s"));
  EXPECT_THAT(text.str(), ::testing::HasSubstr("DISABLED_BlocksForever")) << "the hung thread's stack";
}

}  // namespace
}  // namespace bloomcrawl
