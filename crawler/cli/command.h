// The subcommands of `bloomcrawl`. Each lives in its own cmd_*.cc and registers itself with
// BLOOMCRAWL_COMMAND, so adding a subcommand touches no other file.
//
// setup() declares the subcommand's options on `app` (CLI11) and returns the function that runs
// it once the command line is parsed; that function returns the process exit code.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace bloomcrawl::cli {

using RunFn = std::function<int()>;
using SetupFn = std::function<RunFn(CLI::App& app)>;

struct Command {
  std::string name;
  std::string description;
  SetupFn setup;
};

std::vector<Command>& registered_commands();
bool register_command(Command command);

}  // namespace bloomcrawl::cli

#define BLOOMCRAWL_COMMAND_CONCAT_(a, b) a##b
#define BLOOMCRAWL_COMMAND_NAME_(line) BLOOMCRAWL_COMMAND_CONCAT_(registered_command_, line)
#define BLOOMCRAWL_COMMAND(name, description, setup)                      \
  static const bool BLOOMCRAWL_COMMAND_NAME_(__LINE__) [[maybe_unused]] = \
      ::bloomcrawl::cli::register_command({name, description, setup})
