#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>

#include "crawler/cli/command.h"

namespace bloomcrawl::cli {

std::vector<Command>& registered_commands() {
  static std::vector<Command> commands;
  return commands;
}

bool register_command(Command command) {
  registered_commands().push_back(std::move(command));
  return true;
}

bool has_command(std::string_view name) {
  return std::ranges::any_of(registered_commands(), [&](const Command& command) { return command.name == name; });
}

namespace {

int run_cli(int argc, char** argv) {
  CLI::App app{"bloomcrawl: a polite multi-threaded web crawler with a checkpointed Bloom seen-filter"};
  app.require_subcommand(1);
  // Listed by name: the order files register in depends on how the program was linked.
  std::vector<Command>& commands = registered_commands();
  std::ranges::sort(commands, {}, &Command::name);
  std::vector<std::pair<CLI::App*, RunFn>> runs;
  for (const Command& command : commands) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    runs.emplace_back(sub, command.setup(*sub));
  }
  CLI11_PARSE(app, argc, argv);
  try {
    for (auto& [sub, run] : runs) {
      if (sub->parsed()) return run();
    }
  } catch (const std::exception& e) {
    std::cerr << "bloomcrawl: error: " << e.what() << "\n";
    return 1;
  }
  return 2;
}

}  // namespace

// A command's errors are reported above, after parsing; this catch is for the setup before it
// (building the command line): a bug, so it ends the process as an uncaught exception did, but
// names the exception first.
int run_commands(int argc, char** argv) {
  try {
    return run_cli(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bloomcrawl: internal error: %s\n", e.what());
    std::abort();
  }
}

}  // namespace bloomcrawl::cli
