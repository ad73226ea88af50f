// status.json (docs/status-file.md): what is written reads back; what is not a status of this
// version is refused naming the file; the writer's liveness is told by PID and start time, so a
// process that ended (or a later one given its PID) is not taken for the crawl.
#include "crawler/output/status_file.h"

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "base/data_error.h"
#include "tests/support/spawn.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

CrawlStatus this_process_status() {
  CrawlStatus s;
  s.pid = ::getpid();
  s.process_start = process_start_time(::getpid()).value_or(0);
  s.hostname = this_hostname();
  return s;
}

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

std::string error_of(const fs::path& dir) {
  try {
    read_status_file(dir);
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "";
}

TEST(StatusFile, WhatIsWrittenReadsBackAndReplacesTheLastOne) {
  testing::TempDir dir;
  CrawlStatus s = this_process_status();
  s.pages = 117;
  s.queued = 5;
  s.filter_keys = 349;
  s.filter_capacity = 10000;
  s.started_at = rfc3339_utc(std::chrono::system_clock::time_point(std::chrono::milliseconds(1764633911123)));
  write_status_file(dir.path(), s);
  s.pages = 118;
  s.state = "stopped";
  s.stopped_by = "signal";
  write_status_file(dir.path(), s);
  const CrawlStatus back = read_status_file(dir.path());
  EXPECT_EQ(back.pages, 118u);
  EXPECT_EQ(back.state, "stopped");
  EXPECT_EQ(back.stopped_by, "signal");
  EXPECT_EQ(back.queued, 5u);
  EXPECT_EQ(back.pid, s.pid);
  EXPECT_EQ(back.started_at, "2025-12-02T00:05:11.123Z");
  EXPECT_DOUBLE_EQ(back.filter_fill(), 0.0349);
  EXPECT_FALSE(fs::exists(dir.path() / "status.json.new"));
}

TEST(StatusFile, WhatIsNotAStatusOfThisVersionIsRefusedNamingTheFile) {
  testing::TempDir dir;
  const std::string path = (dir.path() / kStatusFileName).string();
  EXPECT_NE(error_of(dir.path()).find(path), std::string::npos) << "missing";
  write_text(path, R"({"format": "bloomcrawl-status", "ver)");
  EXPECT_NE(error_of(dir.path()).find(path + ": not JSON"), std::string::npos);
  write_text(path, R"({"format": "something-else", "version": 1})");
  EXPECT_NE(error_of(dir.path()).find("not a bloomcrawl status file"), std::string::npos);
  nlohmann::json j = to_json(this_process_status());
  j["version"] = kStatusFileVersion + 1;
  write_text(path, j.dump());
  const std::string unknown =
      "version " + std::to_string(kStatusFileVersion + 1) + " is not " + std::to_string(kStatusFileVersion);
  EXPECT_NE(error_of(dir.path()).find(unknown), std::string::npos) << error_of(dir.path());
  j["version"] = kStatusFileVersion;
  j.erase("queued");
  write_text(path, j.dump());
  EXPECT_NE(error_of(dir.path()).find("'queued' is missing"), std::string::npos) << error_of(dir.path());
}

TEST(StatusFile, TheWriterIsAliveWhileItsProcessRuns) {
  const CrawlStatus s = this_process_status();
  ASSERT_NE(s.process_start, 0u) << "this test needs /proc";
  EXPECT_EQ(writer_alive(s), true);

  CrawlStatus reused = s;  // the same PID, started at another time: another process
  reused.process_start = s.process_start + 1;
  EXPECT_EQ(writer_alive(reused), false);

  CrawlStatus elsewhere = s;
  elsewhere.hostname = s.hostname + "-other";
  EXPECT_EQ(writer_alive(elsewhere), std::nullopt) << "a PID of another host cannot be checked here";
}

TEST(StatusFile, AnEndedWriterIsNotAlive) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  pid_t child = -1;
  ASSERT_EQ(testing::spawn_program({"/bin/sleep", "30"}, actions, &child), 0);
  posix_spawn_file_actions_destroy(&actions);
  CrawlStatus s = this_process_status();
  s.pid = child;
  s.process_start = process_start_time(child).value_or(0);
  ASSERT_NE(s.process_start, 0u);
  EXPECT_EQ(writer_alive(s), true);
  ::kill(child, SIGKILL);
  siginfo_t info{};
  ASSERT_EQ(::waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT), 0);  // dead, not yet reaped
  EXPECT_EQ(writer_alive(s), false) << "a zombie runs no more";
  EXPECT_EQ(testing::wait_exit_code(child), 128 + SIGKILL);
  EXPECT_EQ(writer_alive(s), false);
}

}  // namespace
}  // namespace bloomcrawl
