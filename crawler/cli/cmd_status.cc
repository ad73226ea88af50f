// `bloomcrawl status DIR | --cluster redis://[USER:]PASSWORD@HOST:PORT/NAME [--json]`: how a crawl is doing. A thin
// dispatcher over the modes, each in its own file: DIR, the output or checkpoint directory of one
// crawl (status_dir.h); --cluster, a whole cluster crawl from its Redis record (status_cluster.h).
#include <iostream>
#include <memory>
#include <string>

#include "crawler/cli/command.h"
#include "crawler/cli/status_cluster.h"
#include "crawler/cli/status_dir.h"

namespace bloomcrawl::cli {
namespace {

struct StatusArgs {
  std::string dir;
  std::string cluster;
  std::string password_file;
  std::string password_env;
  bool json = false;
};

RunFn setup_status(CLI::App& app) {
  auto args = std::make_shared<StatusArgs>();
  auto* dir = app.add_option("dir", args->dir, "output or checkpoint directory of a crawl (docs/status-file.md)");
  auto* cluster =
      app.add_option("--cluster", args->cluster, "a cluster crawl: redis://HOST:PORT/NAME (docs/cluster.md)");
  dir->excludes(cluster);
  app.add_option("--password-file", args->password_file, "with --cluster: a file holding the Redis password");
  app.add_option("--password-env", args->password_env, "with --cluster: a variable holding the Redis password");
  app.add_flag("--json", args->json, "print JSON instead of text");
  app.callback([dir, cluster] {
    if (dir->count() == 0 && cluster->count() == 0) {
      throw CLI::ValidationError("dir", "give the crawl's directory, or --cluster redis://HOST:PORT/NAME");
    }
  });
  return [args]() -> int {
    if (!args->cluster.empty())
      return run_status_cluster(args->cluster, args->password_file, args->password_env, args->json, std::cout);
    return print_dir_status(args->dir, args->json, std::cout, std::cerr);
  };
}

BLOOMCRAWL_COMMAND("status", "progress of a running or stopped crawl, from its directory or its cluster", setup_status);

}  // namespace
}  // namespace bloomcrawl::cli
