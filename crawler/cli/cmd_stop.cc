// `bloomcrawl stop --cluster redis://HOST:PORT/NAME`: asks every node of a cluster's crawl to stop
// as on SIGINT, each with its final checkpoint and report (docs/cluster.md, "Status and stop"). It
// returns once the request is recorded in Redis; the nodes see it within about a second.
#include <iostream>

#include "config/cluster_address.h"
#include "crawler/cli/command.h"
#include "crawler/cluster/cluster_status.h"
#include "crawler/cluster/redis_client.h"
#include "crawler/cluster/redis_password.h"

namespace bloomcrawl::cli {

BLOOMCRAWL_COMMAND("stop", "Stop every node of a cluster's crawl with a checkpoint", [](CLI::App& app) -> RunFn {
  struct Args {
    std::string cluster;
    std::string password_file;
    std::string password_env;
  };
  auto args = std::make_shared<Args>();
  app.add_option("--cluster", args->cluster, "The cluster's crawl: redis://[USER:]PASSWORD@HOST:PORT/NAME")->required();
  app.add_option("--password-file", args->password_file, "A file holding the Redis password");
  app.add_option("--password-env", args->password_env, "A variable holding the Redis password");
  return [args] {
    const ClusterAddress a = parse_cluster_address(args->cluster, true);
    RedisClient redis(cluster_endpoint(a, args->password_file, args->password_env),
                      RedisOptions{.reconnect_for = std::chrono::milliseconds{0}});
    request_cluster_stop(redis, a.name);
    std::cout << "stop requested for cluster " << a.name << " at " << redis.endpoint().url()
              << "; its nodes stop within about a second\n";
    return 0;
  };
});

}  // namespace bloomcrawl::cli
