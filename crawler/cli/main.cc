// `bloomcrawl`: a thin CLI over the crawler, frontier and seenfilter libraries.
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

int main(int argc, char** argv) {
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
