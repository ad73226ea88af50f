// `bloomcrawl-crawler`: every subcommand of bloomcrawl. Users run it through `bloomcrawl`
// (front_main.cc), which runs dedup and url itself and hands every other command line here.
#include "crawler/cli/command.h"

int main(int argc, char** argv) { return bloomcrawl::cli::run_commands(argc, argv); }
