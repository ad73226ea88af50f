// `bloomcrawl`: a thin CLI over the crawler, frontier and seenfilter libraries.
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

}  // namespace bloomcrawl::cli

namespace {

int run_cli(int argc, char** argv) {
  using namespace bloomcrawl::cli;
  CLI::App app{"bloomcrawl: a polite multi-threaded web crawler with a checkpointed Bloom seen-filter"};
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, RunFn>> runs;
  for (const Command& command : registered_commands()) {
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
int main(int argc, char** argv) {
  try {
    return run_cli(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bloomcrawl: internal error: %s\n", e.what());
    std::abort();
  }
}
