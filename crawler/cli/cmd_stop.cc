// `bloomcrawl stop --cluster redis://HOST:PORT/NAME`: asks every node of a cluster's crawl to stop
// as on SIGINT, each with its final checkpoint and report (docs/cluster.md, "Status and stop"). It
// returns once the request is recorded in Redis; the nodes see it within about a second.
#include <iostream>

#include "config/cluster_address.h"
#include "crawler/cli/command.h"
#include "crawler/cluster/cluster_status.h"
#include "crawler/cluster/redis_client.h"

namespace bloomcrawl::cli {

BLOOMCRAWL_COMMAND("stop", "Stop every node of a cluster's crawl with a checkpoint", [](CLI::App& app) -> RunFn {
  auto cluster = std::make_shared<std::string>();
  app.add_option("--cluster", *cluster, "The cluster's crawl: redis://HOST:PORT/NAME")->required();
  return [cluster] {
    const ClusterAddress a = parse_cluster_address(*cluster, true);
    RedisClient redis(RedisEndpoint{a.host, a.port}, RedisOptions{.reconnect_for = std::chrono::milliseconds{0}});
    request_cluster_stop(redis, a.name);
    std::cout << "stop requested for cluster " << a.name << " at " << redis.endpoint().url()
              << "; its nodes stop within about a second\n";
    return 0;
  };
});

}  // namespace bloomcrawl::cli
