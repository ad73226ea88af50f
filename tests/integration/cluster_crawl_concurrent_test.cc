// Cluster mode end to end (docs/cluster.md) with a real redis-server: three nodes (three Crawlers
// in this process) crawl the test web, each fetching only the hosts it owns; and `bloomcrawl crawl
// --cluster` refuses a node that disagrees with the recorded crawl, or a Redis it cannot reach.

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/cluster/cluster_registry.h"
#include "crawler/cluster/host_partition.h"
#include "crawler/cluster/redis_client.h"
#include "crawler/persist/crawl_checkpoint.h"
#include "crawler/persist/journal_replay.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "crawler/url/url.h"
#include "tests/support/page_records.h"
#include "tests/support/partition_port.h"
#include "tests/support/redis_server.h"
#include "tests/support/run_concurrently.h"
#include "tests/support/spawn.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_web.h"
#include "tests/support/test_web_config.h"
#include "tests/support/url_records_check.h"

// TSan: Debian's uninstrumented cpp-httplib and librocksdb are suppressed by tests/tsan.supp.

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr int kNodes = 3;

// Six hosts, so that each of the three nodes owns some; slow enough to be interrupted mid-crawl.
testweb::TestWebOptions slow_six_host_web() {
  testweb::TestWebOptions o;
  o.trap = false;
  o.hosts = {"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6", "127.0.0.7"};
  o.pages_per_host = 40;
  o.response_delay = std::chrono::milliseconds(5);
  o.port = testing::port_sharing_hosts_evenly(o.hosts, kNodes);
  return o;
}

class ClusterCrawlTest : public ::testing::Test {
 protected:
  void SetUp() override { redis_.start(); }

  CrawlConfig config_for(const testweb::TestWeb& web, int node) const {
    CrawlConfig c = testing::test_web_config(web, dir_.path() / ("node" + std::to_string(node)));
    c.cluster = ClusterConfig{redis_.url(), "test", kNodes, node};
    return c;
  }

  static std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  // Starts `bloomcrawl args...`, stdout to /dev/null and stderr to TAG.stderr.
  pid_t spawn_cli(std::vector<std::string> args, const std::string& tag) const {
    args.insert(args.begin(), BLOOMCRAWL_BIN);
    const pid_t pid = testing::spawn_to_files(std::move(args), "/dev/null", dir_.path() / (tag + ".stderr"));
    EXPECT_GT(pid, 0);
    return pid;
  }
  static int wait_exit(pid_t pid) { return testing::wait_exit_code(pid); }
  // Runs `bloomcrawl args...` to its end: its exit code and stderr.
  std::pair<int, std::string> run_cli(std::vector<std::string> args) const {
    const int code = wait_exit(spawn_cli(std::move(args), "cli"));
    return {code, read(dir_.path() / "cli.stderr")};
  }

  // `bloomcrawl lookup DIR urls...`, run to its end: one JSON line per URL.
  std::vector<nlohmann::json> lookup(const fs::path& dir, const std::vector<std::string>& urls) const {
    std::vector<std::string> args = {BLOOMCRAWL_BIN, "lookup", dir.string()};
    args.insert(args.end(), urls.begin(), urls.end());
    const fs::path out = dir_.path() / "lookup.stdout";
    EXPECT_EQ(wait_exit(testing::spawn_to_files(std::move(args), out, dir_.path() / "lookup.stderr")), 0)
        << read(dir_.path() / "lookup.stderr");
    std::vector<nlohmann::json> lines;
    std::ifstream in(out);
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
    return lines;
  }

  // Each node's URL records (those of its checkpoint directory's current generation) match its
  // pages.jsonl and hold only the hosts it owns; `bloomcrawl lookup` on its checkpoint directory
  // finds one of its own fetched pages and does not know a page another node fetched.
  void expect_each_node_keeps_its_hosts_records(const testweb::TestWeb& web) const {
    const HostPartition partition(kNodes);
    std::vector<std::string> fetched_by(kNodes);  // one URL each node fetched
    for (int node = 0; node < kNodes; ++node) {
      const fs::path checkpoints = dir_.path() / ("ckpt" + std::to_string(node));
      const fs::path out = config_for(web, node).output.directory;
      testing::expect_records_match_pages(testing::current_records(checkpoints), out);
      for (const auto& [url, record] : testing::read_url_records(testing::current_records(checkpoints)))
        EXPECT_EQ(partition.owner(parse_url(url).value().origin_host_port()), uint32_t(node)) << url;
      for (const auto& [url, lines] : testing::read_page_records(out)) {
        if (lines.back()["outcome"] == "ok") fetched_by[size_t(node)] = url;
      }
      ASSERT_FALSE(fetched_by[size_t(node)].empty()) << "node " << node << " fetched nothing";
    }
    for (int node = 0; node < kNodes; ++node) {
      const std::string& other = fetched_by[size_t((node + 1) % kNodes)];
      const std::vector<nlohmann::json> lines =
          lookup(dir_.path() / ("ckpt" + std::to_string(node)), {fetched_by[size_t(node)], other});
      ASSERT_EQ(lines.size(), 2u);
      EXPECT_EQ(lines[0]["outcome"], "fetched") << lines[0].dump();
      EXPECT_EQ(lines[1], (nlohmann::json{{"url", other}, {"admitted", false}})) << "node " << node;
    }
  }

  // Three checkpointed `bloomcrawl` processes crawl a slow web; the web holds its answers from the
  // page request that makes a third of the web on (so the crawl is mid-way however late this
  // thread runs: a wait for a third of the requests, under ASan on a loaded CI machine, once woke
  // when the crawl had ended). `before_kill` then runs with the host of that request and names a
  // node, which is killed with kill -9; the answers are released, Redis is unpaused (if
  // `before_kill` paused it) and the node resumed. Expects the union of the nodes' pages to be the
  // ground truth and the duplicate fetches no more than the node had outstanding at the kill.
  void kill_a_node_and_resume(const std::function<int(testweb::TestWeb&, const std::string&)>& before_kill) {
    testweb::TestWeb web(slow_six_host_web());
    web.start();
    const size_t total = web.ground_truth(web.site_depth()).size();
    web.hold_responses_from_page_request(total / 3);
    std::vector<fs::path> configs;
    configs.reserve(kNodes);
    for (int node = 0; node < kNodes; ++node) {
      CrawlConfig c = config_for(web, node);
      c.checkpoint.directory = (dir_.path() / ("ckpt" + std::to_string(node))).string();
      c.logging.progress = "never";
      configs.push_back(dir_.path() / ("node" + std::to_string(node) + ".json"));
      std::ofstream(configs.back()) << to_json(c).dump();
    }
    std::vector<pid_t> pids;
    pids.reserve(kNodes);
    for (int node = 0; node < kNodes; ++node)
      pids.push_back(spawn_cli({"crawl", "--config", configs[size_t(node)].string()}, "run" + std::to_string(node)));
    const std::optional<std::string> held_host = web.wait_for_hold(std::chrono::seconds(60));
    ASSERT_TRUE(held_host.has_value()) << "the crawl never asked for a third of the web";
    const int victim = before_kill(web, *held_host);
    const std::string name = std::to_string(victim);
    ::kill(pids[size_t(victim)], SIGKILL);
    EXPECT_EQ(wait_exit(pids[size_t(victim)]), 128 + SIGKILL) << read(dir_.path() / ("run" + name + ".stderr"));
    web.release_responses();
    RedisClient(RedisEndpoint{"127.0.0.1", redis_.port()}).command({"CLIENT", "UNPAUSE"});
    // What it had outstanding at the kill, as its journal shows it (dispatched, not completed; the
    // crawl's one generation was cut at its start, so the journal covers the whole run).
    const uint64_t outstanding_at_kill =
        replay_journals(journals_since(dir_.path() / ("ckpt" + name), 1), {}).outstanding.size();
    pids[size_t(victim)] =
        spawn_cli({"crawl", "--config", configs[size_t(victim)].string(), "--resume"}, "resume" + name);
    for (int node = 0; node < kNodes; ++node) {
      EXPECT_EQ(wait_exit(pids[size_t(node)]), 0)
          << read(dir_.path() / ((node == victim ? "resume" : "run") + std::to_string(node) + ".stderr"));
    }
    web.stop();

    std::set<std::string> fetched;
    for (int node = 0; node < kNodes; ++node) {
      for (const auto& [url, records] : testing::read_page_records(config_for(web, node).output.directory)) {
        for (const nlohmann::json& r : records) {
          if (r["status"].get<long>() != 0) fetched.insert(url);
        }
      }
    }
    const std::vector<std::string> truth = web.ground_truth(web.site_depth());
    EXPECT_EQ(fetched, std::set<std::string>(truth.begin(), truth.end()));
    EXPECT_LE(web.summary().duplicate_fetches, outstanding_at_kill);
    expect_each_node_keeps_its_hosts_records(web);
  }

  testing::RedisServer redis_;
  testing::TempDir dir_;
};

TEST_F(ClusterCrawlTest, ThreeNodesFetchTheGroundTruthOnceEachHostByItsOwner) {
  testweb::TestWebOptions o;
  o.trap = false;
  o.hosts = {"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6", "127.0.0.7"};
  o.pages_per_host = 30;
  o.port = testing::port_sharing_hosts_evenly(o.hosts, kNodes);
  testweb::TestWeb web(o);
  web.start();

  std::vector<nlohmann::json> reports(kNodes);
  testing::run_concurrently(kNodes, [&](int node) {
    const CrawlConfig c = config_for(web, node);
    validate_config(c);
    RedisClient redis(RedisEndpoint{"127.0.0.1", redis_.port()});
    join_cluster(redis, cluster_identity(c));
    Crawler crawler(settings_from_config(c));
    reports[size_t(node)] = crawler.run();
  });
  web.stop();

  const HostPartition partition(kNodes);
  std::set<std::string> fetched;
  std::set<uint32_t> nodes_that_sent;
  for (int node = 0; node < kNodes; ++node) {
    EXPECT_EQ(reports[size_t(node)]["crawl"]["stopped_by"], "done") << reports[size_t(node)].dump(2);
    if (reports[size_t(node)]["cluster"]["batches_sent"].get<uint64_t>() > 0) nodes_that_sent.insert(node);
    for (const auto& [url, records] : testing::read_page_records(config_for(web, node).output.directory)) {
      EXPECT_EQ(records.size(), 1u) << url << ": one record per URL";
      const std::string host = parse_url(url).value().origin_host_port();
      EXPECT_EQ(partition.owner(host), uint32_t(node)) << url << " recorded by node " << node;
      if (records[0]["status"].get<long>() != 0) fetched.insert(url);
    }
  }
  const std::vector<std::string> truth = web.ground_truth(web.site_depth());
  EXPECT_EQ(fetched, std::set<std::string>(truth.begin(), truth.end()));
  EXPECT_GE(nodes_that_sent.size(), 2u) << "links crossed between nodes";
  const testweb::FetchLogSummary s = web.summary();
  EXPECT_EQ(s.duplicate_fetches, 0u);
  EXPECT_EQ(s.robots_violations, 0u);
  for (const auto& host : s.hosts) EXPECT_EQ(host.requests_before_robots_txt, 0u) << host.host;
}

// Three nodes crawl while redis-server (append-only file, fsync always) is restarted under them: they
// reconnect, and the crawl still fetches the ground truth once.
TEST(ClusterRedisRestartTest, TheCrawlGoesOnAcrossARestartOfRedis) {
  testing::RedisServer redis({.appendonly = true});
  redis.start();
  testing::TempDir dir;
  const testweb::TestWebOptions o = slow_six_host_web();
  testweb::TestWeb web(o);
  web.start();
  // Held from a third of the pages on, so Redis restarts mid-crawl however late the operator runs.
  web.hold_responses_from_page_request(web.ground_truth(web.site_depth()).size() / 3);

  std::vector<nlohmann::json> reports(kNodes + 1);
  testing::run_concurrently(kNodes + 1, [&](int t) {
    if (t == kNodes) {  // the operator, restarting Redis once a third of the pages are asked for
      EXPECT_TRUE(web.wait_for_hold(std::chrono::seconds(60)).has_value());
      redis.restart();
      web.release_responses();
      return;
    }
    CrawlConfig c = testing::test_web_config(web, dir.path() / ("node" + std::to_string(t)));
    c.cluster = ClusterConfig{redis.url(), "restart", kNodes, t};
    RedisClient client(RedisEndpoint{"127.0.0.1", redis.port()});
    join_cluster(client, cluster_identity(c));
    Crawler crawler(settings_from_config(c));
    reports[size_t(t)] = crawler.run();
  });
  web.stop();

  std::set<std::string> fetched;
  for (int node = 0; node < kNodes; ++node) {
    EXPECT_EQ(reports[size_t(node)]["crawl"]["stopped_by"], "done") << reports[size_t(node)].dump(2);
    for (const auto& [url, records] : testing::read_page_records(dir.path() / ("node" + std::to_string(node)))) {
      if (records[0]["status"].get<long>() != 0) fetched.insert(url);
    }
  }
  const std::vector<std::string> truth = web.ground_truth(web.site_depth());
  EXPECT_EQ(fetched, std::set<std::string>(truth.begin(), truth.end()));
  EXPECT_EQ(web.summary().duplicate_fetches, 0u);
}

// Three `bloomcrawl` processes; node 1 is killed with kill -9 mid-crawl and resumed: the crawl
// still fetches the ground truth, refetching no more than node 1 had outstanding at the kill (its
// transfers in flight, and the pages whose links were still in its outbox).
TEST_F(ClusterCrawlTest, ANodeKilledAndResumedLosesNothing) {
  kill_a_node_and_resume([](testweb::TestWeb&, const std::string&) { return 1; });
}

// Redis paused for writes, so no XADD of a node's outbox completes: the node is killed once a page
// of its own hosts has been answered since the pause, so its links are unsent at the kill (the page
// is still outstanding in the journal). Those pages were never journaled as done: the resumed node
// fetches them again and sends their links (docs/cluster.md, "Batching and durability").
// The node is the owner of the page request that began the web's hold: that request is held from
// before the pause until after it, so such a page exists whatever the node was doing when Redis
// paused (a node blocked on a paused write, or waiting for links, may start none in the pause).
TEST_F(ClusterCrawlTest, ANodeKilledWithLinksInItsOutboxLosesNone) {
  kill_a_node_and_resume([&](testweb::TestWeb& web, const std::string& held_host) {
    const HostPartition partition(kNodes);
    const auto owner = [&](const std::string& host) {
      return int(partition.owner(host + ":" + std::to_string(web.port())));
    };
    const int victim = owner(held_host);
    RedisClient(RedisEndpoint{"127.0.0.1", redis_.port()}).command({"CLIENT", "PAUSE", "10000", "WRITE"});
    const auto paused_at = std::chrono::steady_clock::now();
    web.release_responses();
    const bool answered = web.wait_for_requests(
        [&](const std::vector<testweb::LoggedRequest>& requests) {
          return std::any_of(requests.begin(), requests.end(), [&](const testweb::LoggedRequest& r) {
            return !r.robots_txt && owner(r.host) == victim && r.end >= paused_at;
          });
        },
        std::chrono::seconds(5));
    EXPECT_TRUE(answered) << "node " << victim << "'s held page was not answered after the pause";
    return victim;
  });
}

TEST_F(ClusterCrawlTest, ANodeWithAnotherNOrConfigIsRefused) {
  CrawlConfig first;
  first.cluster = ClusterConfig{redis_.url(), "test", kNodes, 0};
  RedisClient redis(RedisEndpoint{"127.0.0.1", redis_.port()});
  join_cluster(redis, cluster_identity(first));

  const std::string cluster = redis_.url() + "/test";
  auto [code, err] = run_cli({"crawl", "--seed", "http://127.0.0.2:1/", "--output", (dir_.path() / "o").string(),
                              "--cluster", cluster, "--nodes", "4", "--node", "1"});
  EXPECT_EQ(code, 1);
  EXPECT_THAT(err, HasSubstr("cannot join cluster test at " + redis_.url()));
  EXPECT_THAT(err, HasSubstr("nodes: 3 in the cluster, 4 on this node"));

  const fs::path config = dir_.path() / "c.json";
  std::ofstream(config) << R"({"seeds": {"urls": ["http://127.0.0.2:1/"]}, "canonicalization": {"sort_query": true}})";
  std::tie(code, err) = run_cli({"crawl", "--config", config.string(), "--output", (dir_.path() / "o").string(),
                                 "--cluster", cluster, "--nodes", "3", "--node", "1"});
  EXPECT_EQ(code, 1);
  EXPECT_THAT(err, HasSubstr("/canonicalization/sort_query: false in the cluster, true on this node"));
}

TEST_F(ClusterCrawlTest, AnUnreachableRedisIsAClearError) {
  const std::string url = redis_.url();
  redis_.stop();
  auto [code, err] = run_cli({"crawl", "--seed", "http://127.0.0.2:1/", "--output", (dir_.path() / "o").string(),
                              "--cluster", url + "/test", "--nodes", "2", "--node", "0"});
  EXPECT_EQ(code, 1) << "an error exit, not a crash";
  EXPECT_THAT(err, HasSubstr("bloomcrawl: error: cannot connect to " + url + ": Connection refused"));
}

}  // namespace
}  // namespace bloomcrawl
