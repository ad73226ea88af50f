// The subcommands of `bloomcrawl`. Each lives in its own cmd_*.cc and registers itself with
// BLOOMCRAWL_COMMAND, so adding a subcommand touches no other file.
//
// setup() declares the subcommand's options on `app` (CLI11) and returns the function that runs
// it once the command line is parsed; that function returns the process exit code.
//
// A program holds the commands whose files it links: `bloomcrawl-crawler` all of them, the
// `bloomcrawl` front only the filters (docs/design.md, "The front program").
#pragma once

#include <functional>
#include <string>
#include <string_view>
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
bool has_command(std::string_view name);

// Parses argv against the registered commands and runs the one named; returns the exit code.
int run_commands(int argc, char** argv);

}  // namespace bloomcrawl::cli

#define BLOOMCRAWL_COMMAND_CONCAT_(a, b) a##b
#define BLOOMCRAWL_COMMAND_NAME_(line) BLOOMCRAWL_COMMAND_CONCAT_(registered_command_, line)
#define BLOOMCRAWL_COMMAND(name, description, setup)                      \
  static const bool BLOOMCRAWL_COMMAND_NAME_(__LINE__) [[maybe_unused]] = \
      ::bloomcrawl::cli::register_command({name, description, setup})
