// Starting a program from a test (the built `bloomcrawl`, usually) with posix_spawn: the strings of
// its command line turned into argv, `actions` redirecting its descriptors.
#pragma once

#include <spawn.h>
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

}  // namespace bloomcrawl::testing
