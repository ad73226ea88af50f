// `bloomcrawl crawl --cluster` whose outbox cannot send (node 1's inbox key holds a string, so every
// XADD to it fails at once, as a Redis gone for good would): the node stops cleanly, exit 1, with a
// message naming the Redis server, never exit 0 or a signal (docs/cluster.md, "What each failure
// can cost").
#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "crawler/cluster/cluster_registry.h"
#include "crawler/cluster/redis_client.h"
#include "tests/support/partition_port.h"
#include "tests/support/redis_server.h"
#include "tests/support/spawn.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_web.h"

namespace bloomcrawl {
namespace {

TEST(ClusterOutboxFailure, TheNodeStopsWithExitOneNamingRedis) {
  testing::RedisServer redis;
  redis.start();
  testing::TempDir dir;
  testweb::TestWebOptions o;
  o.trap = false;
  o.hosts = {"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"};
  o.pages_per_host = 10;
  // Node 1 owns one of the hosts, so links go to its inbox and the send fails. Ownership hashes
  // host:port: on an ephemeral port node 0 owned all four hosts about one run in 16, nothing was
  // sent, and the node waited for good for node 1 (never started) to be idle.
  o.port = testing::port_sharing_hosts_evenly(o.hosts, 2);
  testweb::TestWeb web(o);
  web.start();
  RedisClient(RedisEndpoint{"127.0.0.1", redis.port()}).command({"SET", cluster_key("fail", "inbox:1"), "x"});

  const std::string err = (dir.path() / "crawl.stderr").string();
  std::vector<std::string> args = {BLOOMCRAWL_BIN, "crawl", "--seed", web.seed_url()};
  for (const std::string& host : o.hosts)
    args.insert(args.end(), {"--seed", "http://" + host + ":" + std::to_string(web.port()) + "/"});
  args.insert(args.end(),
              {"--output", (dir.path() / "out").string(), "--checkpoint-dir", (dir.path() / "ckpt").string(),
               "--allow-range", "127.0.0.0/8", "--cluster", redis.url() + "/fail", "--nodes", "2", "--node", "0"});
  const int code = testing::wait_exit_code(testing::spawn_to_files(args, "/dev/null", err));
  web.stop();
  std::stringstream text;
  text << std::ifstream(err).rdbuf();
  EXPECT_EQ(code, 1) << text.str();
  EXPECT_THAT(text.str(), ::testing::HasSubstr(redis.url() + ": links not sent"));
  EXPECT_THAT(text.str(), ::testing::HasSubstr("WRONGTYPE"));
}

}  // namespace
}  // namespace bloomcrawl
