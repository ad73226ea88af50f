// Operating a running cluster (docs/cluster.md, "Status and stop", "The cluster report", "Adding
// nodes") with a real redis-server: `bloomcrawl status --cluster` and `bloomcrawl stop --cluster` on
// three running `bloomcrawl` processes, the merged cluster report against the server's count, a
// two-node crawl stopped and resumed as three nodes, and inbox entries acknowledged only once synced.

#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/cluster/cluster_link.h"
#include "crawler/cluster/cluster_registry.h"
#include "crawler/cluster/cluster_status.h"
#include "crawler/cluster/host_partition.h"
#include "crawler/cluster/redis_client.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "crawler/url/url.h"
#include "tests/support/faulty_file_system.h"
#include "tests/support/page_records.h"
#include "tests/support/partition_port.h"
#include "tests/support/redis_server.h"
#include "tests/support/run_concurrently.h"
#include "tests/support/spawn.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_web.h"
#include "tests/support/test_web_config.h"

// TSan: Debian's uninstrumented cpp-httplib and librocksdb are suppressed by tests/tsan.supp.

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

testweb::TestWebOptions six_hosts(std::chrono::milliseconds delay) {
  testweb::TestWebOptions o;
  o.trap = false;
  o.hosts = {"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6", "127.0.0.7"};
  o.pages_per_host = 40;
  o.response_delay = delay;
  return o;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ClusterControlTest : public ::testing::Test {
 protected:
  void SetUp() override { redis_.start(); }

  fs::path node_dir(int node) const { return dir_.path() / ("node" + std::to_string(node)); }

  // Writes node `node`'s config file (a checkpointed cluster crawl of `web`) and returns its path.
  fs::path write_config(const testweb::TestWeb& web, int nodes, int node) const {
    CrawlConfig c = testing::test_web_config(web, node_dir(node));
    c.cluster = ClusterConfig{redis_.url(), "ops", nodes, node};
    c.checkpoint.directory = (dir_.path() / ("ckpt" + std::to_string(node))).string();
    c.logging.progress = "never";
    fs::path path = dir_.path() / ("node" + std::to_string(node) + ".json");
    std::ofstream(path) << to_json(c).dump();
    return path;
  }

  // Starts `bloomcrawl args...` with stdout to TAG.stdout and stderr to TAG.stderr.
  pid_t spawn_cli(std::vector<std::string> args, const std::string& tag) const {
    args.insert(args.begin(), BLOOMCRAWL_BIN);
    const pid_t pid =
        testing::spawn_to_files(std::move(args), dir_.path() / (tag + ".stdout"), dir_.path() / (tag + ".stderr"));
    EXPECT_GT(pid, 0);
    return pid;
  }
  // Runs `bloomcrawl args...` to its end: its exit code and stdout.
  std::pair<int, std::string> run_cli(std::vector<std::string> args, const std::string& tag) const {
    const int code = testing::wait_exit_code(spawn_cli(std::move(args), tag));
    return {code, read(dir_.path() / (tag + ".stdout")) + read(dir_.path() / (tag + ".stderr"))};
  }
  std::string cluster() const { return redis_.url() + "/ops"; }

  // The status once `ready` holds for it (nodes publish every second), or the last one read.
  ClusterStatus status_when(const std::function<bool(const ClusterStatus&)>& ready) const {
    RedisClient redis(RedisEndpoint{"127.0.0.1", redis_.port()});
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    for (;;) {
      ClusterStatus s = read_cluster_status(redis, "ops");
      if (ready(s) || std::chrono::steady_clock::now() > give_up) return s;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));  // a poll of Redis, not a wait for time
    }
  }

  // The pages fetched (status != 0) as recorded in every node's pages.jsonl.
  std::set<std::string> fetched(int nodes) const {
    std::set<std::string> out;
    for (int node = 0; node < nodes; ++node) {
      for (const auto& [url, records] : testing::read_page_records(node_dir(node))) {
        for (const nlohmann::json& r : records) {
          if (r["status"].get<long>() != 0) out.insert(url);
        }
      }
    }
    return out;
  }

  testing::RedisServer redis_;
  testing::TempDir dir_;
};

TEST_F(ClusterControlTest, StatusAndStopWorkOnARunningClusterAndItResumes) {
  testweb::TestWebOptions o = six_hosts(std::chrono::milliseconds(20));
  o.port = testing::port_sharing_hosts_evenly(o.hosts, 3);  // each node has a crawl to stop
  testweb::TestWeb web(o);
  web.start();
  const size_t total = web.ground_truth(web.site_depth()).size();
  // From a quarter of the web on no response is answered until the nodes have stopped, so the
  // crawl cannot end before the stop, however fast this machine or however late this thread.
  web.hold_responses_from_page_request(total / 4);
  std::vector<fs::path> configs;
  std::vector<pid_t> pids;
  for (int node = 0; node < 3; ++node) {
    configs.push_back(write_config(web, 3, node));
    pids.push_back(spawn_cli({"crawl", "--config", configs.back().string()}, "run" + std::to_string(node)));
  }
  ASSERT_TRUE(web.wait_for_hold(std::chrono::seconds(60)).has_value());
  // Counters are published once a second, so the first "running" record may predate every page:
  // wait for one that counts pages as well.
  const ClusterStatus running = status_when([](const ClusterStatus& s) {
    return s.total.pages > 0 && std::all_of(s.per_node.begin(), s.per_node.end(),
                                            [](const NodeStatus& n) { return n.counters.state == "running"; });
  });
  ASSERT_GT(running.total.pages, 0u) << "no node published a fetched page within 20 s";

  auto [code, out] = run_cli({"status", "--cluster", cluster(), "--json"}, "status-json");
  ASSERT_EQ(code, 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out);
  EXPECT_EQ(j["name"], "ops");
  EXPECT_EQ(j["nodes"], 3);
  ASSERT_EQ(j["per_node"].size(), 3u);
  uint64_t pages = 0;
  for (const nlohmann::json& n : j["per_node"]) {
    EXPECT_EQ(n["state"], "running") << n.dump();
    EXPECT_LT(n["age_seconds"].get<double>(), 3.0) << n.dump();
    pages += n["pages"].get<uint64_t>();
  }
  EXPECT_EQ(j["total"]["pages"].get<uint64_t>(), pages);
  EXPECT_GE(pages, running.total.pages) << "counters only grow";
  EXPECT_GT(pages, 0u);
  EXPECT_LE(pages, total);
  std::tie(code, out) = run_cli({"stop", "--cluster", cluster()}, "stop");
  EXPECT_EQ(code, 0) << out;
  std::tie(code, out) = run_cli({"status", "--cluster", cluster()}, "status-table");
  EXPECT_EQ(code, 0) << out;
  EXPECT_THAT(out, HasSubstr("cluster ops: 3 nodes"));
  EXPECT_THAT(out, HasSubstr("dups avoided"));
  EXPECT_THAT(out, HasSubstr("total "));

  uint64_t requeued = 0;
  for (int node = 0; node < 3; ++node) {
    EXPECT_EQ(testing::wait_exit_code(pids[size_t(node)]), 0)
        << read(dir_.path() / ("run" + std::to_string(node) + ".stderr"));
    const nlohmann::json report = nlohmann::json::parse(read(node_dir(node) / "report.json"));
    EXPECT_EQ(report["crawl"]["stopped_by"], "stop");
    requeued += report["fetches"]["requeued_at_stop"].get<uint64_t>();
    const nlohmann::json merged = nlohmann::json::parse(read(node_dir(node) / "cluster-report.json"));
    EXPECT_EQ(merged["per_node"].size(), 3u) << merged["missing"].dump();
  }
  const ClusterStatus stopped = status_when([](const ClusterStatus&) { return true; });
  for (const NodeStatus& n : stopped.per_node) EXPECT_EQ(n.counters.state, "stopped");
  EXPECT_LT(web.summary().page_requests, total) << "stopped before the end";
  web.release_responses();

  for (int node = 0; node < 3; ++node) {
    pids[size_t(node)] =
        spawn_cli({"crawl", "--config", configs[size_t(node)].string(), "--resume"}, "resume" + std::to_string(node));
  }
  for (int node = 0; node < 3; ++node) {
    EXPECT_EQ(testing::wait_exit_code(pids[size_t(node)]), 0)
        << read(dir_.path() / ("resume" + std::to_string(node) + ".stderr"));
  }
  web.stop();
  const std::vector<std::string> truth = web.ground_truth(web.site_depth());
  EXPECT_EQ(fetched(3), std::set<std::string>(truth.begin(), truth.end()));
  EXPECT_LE(web.summary().duplicate_fetches, requeued) << "only the transfers cancelled by the stop again";
}

// Three in-process nodes: each one's merged report has every node, and its totals are the sum of
// the nodes' reports and the server's count of page requests.
TEST_F(ClusterControlTest, TheMergedReportTotalsEveryNodeAndMatchesTheServer) {
  testweb::TestWeb web(six_hosts(std::chrono::milliseconds(0)));
  web.start();
  std::vector<nlohmann::json> reports(3);
  std::vector<nlohmann::json> merged(3);
  testing::run_concurrently(3, [&](int node) {
    CrawlConfig c = testing::test_web_config(web, node_dir(node));
    c.cluster = ClusterConfig{redis_.url(), "ops", 3, node};
    RedisClient redis(RedisEndpoint{"127.0.0.1", redis_.port()});
    join_cluster(redis, cluster_identity(c));
    Crawler crawler(settings_from_config(c));
    reports[size_t(node)] = crawler.run();
    merged[size_t(node)] = crawler.cluster_report();
  });
  web.stop();
  uint64_t pages = 0;
  uint64_t duplicates = 0;
  uint64_t sent = 0;
  for (const nlohmann::json& r : reports) {
    EXPECT_EQ(r["crawl"]["stopped_by"], "done");
    pages += r["fetches"]["pages_fetched"].get<uint64_t>();
    duplicates += r["duplicates_avoided"]["total"].get<uint64_t>();
    sent += r["cluster"]["urls_sent"].get<uint64_t>();
  }
  EXPECT_EQ(pages, web.summary().page_requests);
  for (const nlohmann::json& m : merged) {
    ASSERT_TRUE(m.is_object());
    EXPECT_EQ(m["nodes"], 3);
    EXPECT_TRUE(m["missing"].empty()) << m["missing"].dump();
    ASSERT_EQ(m["per_node"].size(), 3u);
    EXPECT_EQ(m["totals"]["fetches"]["pages_fetched"].get<uint64_t>(), pages);
    EXPECT_EQ(m["totals"]["duplicates_avoided"]["total"].get<uint64_t>(), duplicates);
    EXPECT_EQ(m["totals"]["cluster"]["urls_sent"].get<uint64_t>(), sent);
    for (int node = 0; node < 3; ++node) {
      EXPECT_EQ(m["per_node"][size_t(node)]["report"]["fetches"], reports[size_t(node)]["fetches"]);
    }
  }
}

// A free loopback port on which at least one of `hosts` moves to node 2 when two nodes grow to
// three (rendezvous hashing keys on "host:port"), so that the test has something to hand over.
uint16_t port_moving_a_host(const std::vector<std::string>& hosts) {
  return testing::free_port_where([&](uint16_t port) {
    const HostPartition three(3);
    for (const std::string& h : hosts) {
      if (three.owner(h + ":" + std::to_string(port)) == 2) return true;
    }
    return false;
  });
}

// Two nodes crawl, are stopped, and resume as three (docs/cluster.md, "Adding nodes"): the old
// nodes hand the new one what they recorded and queued of the hosts it now owns, and the crawl
// fetches the ground truth with no page fetched twice but the transfers the stop cancelled.
TEST_F(ClusterControlTest, TwoNodesStoppedAndResumedAsThreeFetchEachPageOnce) {
  testweb::TestWebOptions o = six_hosts(std::chrono::milliseconds(10));
  o.port = port_moving_a_host(o.hosts);
  testweb::TestWeb web(o);
  web.start();
  const size_t total = web.ground_truth(web.site_depth()).size();
  // The stop meets a running crawl, however fast the machine or however late this thread.
  web.hold_responses_from_page_request(total / 3);
  std::vector<pid_t> pids;
  pids.reserve(2);
  for (int node = 0; node < 2; ++node) {
    pids.push_back(spawn_cli({"crawl", "--config", write_config(web, 2, node).string()}, "run" + std::to_string(node)));
  }
  ASSERT_TRUE(web.wait_for_hold(std::chrono::seconds(60)).has_value());
  EXPECT_EQ(run_cli({"stop", "--cluster", cluster()}, "stop").first, 0);
  uint64_t requeued = 0;
  for (int node = 0; node < 2; ++node) {
    EXPECT_EQ(testing::wait_exit_code(pids[size_t(node)]), 0);
    requeued +=
        nlohmann::json::parse(read(node_dir(node) / "report.json"))["fetches"]["requeued_at_stop"].get<uint64_t>();
  }
  ASSERT_LT(web.summary().page_requests, total) << "stopped before the end";
  web.release_responses();

  pids.clear();
  for (int node = 0; node < 2; ++node) {
    pids.push_back(spawn_cli({"crawl", "--config", (dir_.path() / ("node" + std::to_string(node) + ".json")).string(),
                              "--resume", "--nodes", "3", "--grow"},
                             "grow" + std::to_string(node)));
  }
  pids.push_back(spawn_cli({"crawl", "--config", write_config(web, 3, 2).string(), "--grow"}, "grow2"));
  std::vector<nlohmann::json> reports;
  for (int node = 0; node < 3; ++node) {
    EXPECT_EQ(testing::wait_exit_code(pids[size_t(node)]), 0)
        << read(dir_.path() / ("grow" + std::to_string(node) + ".stderr"));
    reports.push_back(nlohmann::json::parse(read(node_dir(node) / "report.json")));
    EXPECT_EQ(reports.back()["crawl"]["stopped_by"], "done");
  }
  web.stop();

  RedisClient redis(RedisEndpoint{"127.0.0.1", redis_.port()});
  EXPECT_EQ(read_cluster_status(redis, "ops").nodes, 3u);
  const uint64_t handed = reports[0]["cluster"]["recorded_urls_handed_over"].get<uint64_t>() +
                          reports[1]["cluster"]["recorded_urls_handed_over"].get<uint64_t>();
  EXPECT_GT(handed, 0u) << "the moved hosts had pages recorded before the stop";
  const HostPartition three(3);
  std::set<std::string> new_node_hosts;
  for (const auto& [url, records] : testing::read_page_records(node_dir(2))) {
    const std::string host = parse_url(url).value().origin_host_port();
    EXPECT_EQ(three.owner(host), 2u) << url;
    new_node_hosts.insert(host);
  }
  EXPECT_FALSE(new_node_hosts.empty());
  const std::vector<std::string> truth = web.ground_truth(web.site_depth());
  EXPECT_EQ(fetched(3), std::set<std::string>(truth.begin(), truth.end()));
  EXPECT_LE(web.summary().duplicate_fetches, requeued) << "only the transfers cancelled by the stop again";

  // A node of the old N is refused once the crawl has grown.
  auto [code, out] = run_cli({"crawl", "--config", (dir_.path() / "node0.json").string(), "--resume"}, "old-n");
  EXPECT_EQ(code, 1);
  EXPECT_THAT(out, HasSubstr("nodes: 3 in the cluster, 2 on this node"));
}

// An inbox entry is acknowledged (and so deleted from Redis) only once the URLs it brought are durable
// in the journal: with every fdatasync failing, the node stops on the error and the entry stays in
// its inbox for the resume to read again.
TEST_F(ClusterControlTest, AnInboxEntryStaysInRedisUntilItsUrlsAreSynced) {
  testweb::TestWeb web(six_hosts(std::chrono::milliseconds(0)));
  web.start();
  const std::string host = parse_url(web.seed_url()).value().origin_host_port();
  const auto me = int(HostPartition(2).owner(host));
  CrawlConfig c = testing::test_web_config(web, node_dir(me));
  c.cluster = ClusterConfig{redis_.url(), "ops", 2, me};
  c.checkpoint.directory = (dir_.path() / "ckpt").string();
  RedisClient redis(RedisEndpoint{"127.0.0.1", redis_.port()});
  join_cluster(redis, cluster_identity(c));
  const std::string inbox = cluster_key("ops", "inbox:" + std::to_string(me));
  const RoutedBatch batch{1, 0, web.seed_url(), {{web.url(0, "/from-another-node"), host, 0, false}}};
  redis.command({"XADD", inbox, "*", "from", std::to_string(1 - me), "batch", encode_batch(batch)});

  testing::FaultyFileSystem disk;
  disk.fail_data_syncs(EIO);
  CrawlerSettings settings = settings_from_config(c);
  settings.checkpoint.directory = c.checkpoint.directory;
  settings.checkpoint.config = nlohmann::json::object();
  const nlohmann::json report = Crawler(settings).run();
  EXPECT_EQ(report["crawl"]["stopped_by"], "error");
  EXPECT_EQ(redis.command({"XLEN", inbox}).integer(), 1) << "the entry was deleted before its URLs were durable";
}

}  // namespace
}  // namespace bloomcrawl
