// promtool_check(): `promtool check metrics` (Debian's prometheus package) on an exposition, for
// tests of /metrics. scripts/test.sh's machine must have promtool; a test skips when it is missing.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "tests/support/spawn.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl::testing {

inline bool have_promtool() { return ::access("/usr/bin/promtool", X_OK) == 0; }

// promtool's exit code and what it printed (its lint problems), the exposition on its stdin.
struct PromtoolResult {
  int exit_code = -1;
  std::string output;
};

inline PromtoolResult promtool_check(const std::string& exposition) {
  const TempDir dir;
  const std::filesystem::path in = dir.path() / "metrics.txt";
  const std::filesystem::path out = dir.path() / "promtool.out";
  std::ofstream(in) << exposition;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, in.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  PromtoolResult r;
  if (spawn_program({"/usr/bin/promtool", "check", "metrics"}, actions, &pid) == 0) r.exit_code = wait_exit_code(pid);
  posix_spawn_file_actions_destroy(&actions);
  std::stringstream text;
  text << std::ifstream(out).rdbuf();
  r.output = text.str();
  return r;
}

}  // namespace bloomcrawl::testing
