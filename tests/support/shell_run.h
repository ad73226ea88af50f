// run_shell(): runs a shell command line (for tests of the built programs) and returns its exit
// code (-1 if it did not exit normally) and what it wrote to stdout and stderr, interleaved.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace bloomcrawl::testing {

struct ShellRun {
  int exit_code = -1;
  std::string out;  // stdout and stderr
};

inline ShellRun run_shell(const std::string& command) {
  ShellRun result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace bloomcrawl::testing
