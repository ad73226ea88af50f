// `bloomcrawl status DIR | --cluster URL [--json]`: how a crawl is doing. A thin dispatcher over
// the modes, each in its own file: DIR, the output or checkpoint directory of one crawl
// (status_dir.h); --cluster, a cluster crawl from its Redis record (not in this build).
#include <iostream>
#include <memory>
#include <string>

#include "crawler/cli/command.h"
#include "crawler/cli/status_dir.h"

namespace bloomcrawl::cli {
namespace {

struct StatusArgs {
  std::string dir;
  std::string cluster;
  bool json = false;
};

RunFn setup_status(CLI::App& app) {
  auto args = std::make_shared<StatusArgs>();
  auto* dir = app.add_option("dir", args->dir, "output or checkpoint directory of a crawl (docs/status-file.md)");
  auto* cluster = app.add_option("--cluster", args->cluster, "a cluster crawl: redis://HOST:PORT/NAME");
  dir->excludes(cluster);
  app.add_flag("--json", args->json, "print JSON instead of text");
  app.callback([dir, cluster] {
    if (dir->count() == 0 && cluster->count() == 0) {
      throw CLI::ValidationError("dir", "give the crawl's directory, or --cluster URL");
    }
  });
  return [args]() -> int {
    if (!args->cluster.empty()) {
      std::cerr << "bloomcrawl status --cluster: cluster status is not part of this build; give a crawl's "
                   "output or checkpoint directory instead\n";
      return 1;
    }
    return print_dir_status(args->dir, args->json, std::cout, std::cerr);
  };
}

BLOOMCRAWL_COMMAND("status", "progress of a running or stopped crawl, from its directory", setup_status);

}  // namespace
}  // namespace bloomcrawl::cli
