// `bloomcrawl status DIR` (a crawl's local directory) or `bloomcrawl status --cluster
// redis://HOST:PORT/NAME` (a whole cluster, status_cluster.h): this file only chooses the mode.
#include <iostream>

#include "crawler/cli/command.h"
#include "crawler/cli/status_cluster.h"

namespace bloomcrawl::cli {
namespace {

struct StatusFlags {
  std::string dir;
  std::string cluster;
  bool json = false;
};

}  // namespace

BLOOMCRAWL_COMMAND("status", "Show a running or finished crawl: DIR, or --cluster redis://HOST:PORT/NAME",
                   [](CLI::App& app) -> RunFn {
                     auto flags = std::make_shared<StatusFlags>();
                     app.add_option("dir", flags->dir, "The crawl's directory");
                     app.add_option("--cluster", flags->cluster, "A cluster's crawl: redis://HOST:PORT/NAME");
                     app.add_flag("--json", flags->json, "One JSON document instead of the table");
                     app.callback([flags] {
                       if (flags->dir.empty() == flags->cluster.empty()) {
                         throw CLI::ValidationError("status", "give either DIR or --cluster redis://HOST:PORT/NAME");
                       }
                     });
                     return [flags]() -> int {
                       if (!flags->cluster.empty()) return run_status_cluster(flags->cluster, flags->json, std::cout);
                       throw std::runtime_error("status DIR: not built in this branch (only --cluster)");
                     };
                   });

}  // namespace bloomcrawl::cli
