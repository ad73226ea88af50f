// Starting a program from a test (the built `bloomcrawl`, usually) with posix_spawn: the strings of
// its command line turned into argv, `actions` redirecting its descriptors.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace bloomcrawl::testing {

// Runs args[0] with `args`; returns posix_spawn's result (0, or the errno) and the child in *pid.
inline int spawn_program(std::vector<std::string> args, const posix_spawn_file_actions_t& actions, pid_t* pid) {
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return posix_spawn(pid, argv[0], &actions, nullptr, argv.data(), environ);
}

// Runs args[0] with its stdout and stderr written to the files `out` and `err` (created or
// truncated); returns the child, or -1 if it could not be started.
inline pid_t spawn_to_files(std::vector<std::string> args, const std::string& out, const std::string& err) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  if (spawn_program(std::move(args), actions, &pid) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

// Waits for `pid`: its exit code, or 128 + the signal that ended it (as a shell reports it); -1
// if there is no such child.
inline int wait_exit_code(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace bloomcrawl::testing
