// Revisit rounds in cluster mode (docs/cluster.md, "Rounds"; docs/recrawl.md, "Continuous") with a
// real redis-server and two nodes (two Crawlers in this process) on a two-host site, one host per
// node: a revisit round has its own end test, so a link a changed page of node 0's host gives to a
// new page of node 1's host is fetched in the round, even once node 1 has revisited all its own
// pages; and recrawl.continuous keeps both nodes revisiting, round after round, until
// `bloomcrawl stop --cluster` ends both with a checkpoint a resume continues from.

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "config/key_hash.h"
#include "crawler/cluster/cluster_registry.h"
#include "crawler/cluster/cluster_status.h"
#include "crawler/cluster/host_partition.h"
#include "crawler/cluster/redis_client.h"
#include "crawler/persist/crawl_checkpoint.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/page_records.h"
#include "tests/support/partition_port.h"
#include "tests/support/redis_server.h"
#include "tests/support/run_concurrently.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_web_config.h"

// TSan: Debian's uninstrumented cpp-httplib and librocksdb are suppressed by tests/tsan.supp.

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

constexpr int kRoundNodes = 2;
constexpr const char* kRoundHosts[kRoundNodes] = {"127.0.0.2", "127.0.0.3"};

// One request the site answered: host index (0: node 0's host), path, the site's round.
struct SiteRequest {
  size_t host = 0;
  std::string path;
  int round = 1;
};

// Host 0 (node 0's): "/" links "/a1" and host 1's "/"; "/a1" links nothing in round 1 and, changed,
// host 1's "/new" from round 2 on. Host 1 (node 1's): "/" links "/b1"; "/new" exists. No robots.txt.
// `before_answer`, when set, runs before a request is answered (in the server's thread).
class TwoHostSite {
 public:
  TwoHostSite() {
    for (;;) {
      port_ = testing::free_port_where([](uint16_t port) {
        const HostPartition partition(kRoundNodes);
        for (int node = 0; node < kRoundNodes; ++node) {
          if (partition.owner(std::string(kRoundHosts[node]) + ":" + std::to_string(port)) != uint32_t(node)) {
            return false;
          }
        }
        return true;
      });
      if (bind_all()) break;
    }
    for (size_t h = 0; h < kRoundNodes; ++h) {
      threads_.emplace_back([this, h] { servers_[h]->listen_after_bind(); });
      while (!servers_[h]->is_running()) std::this_thread::yield();
    }
  }
  ~TwoHostSite() {
    for (auto& s : servers_) s->stop();
    for (std::thread& t : threads_) t.join();
  }
  TwoHostSite(const TwoHostSite&) = delete;
  TwoHostSite& operator=(const TwoHostSite&) = delete;

  std::string url(size_t host, const std::string& path) const {
    return "http://" + std::string(kRoundHosts[host]) + ":" + std::to_string(port_) + path;
  }
  void set_round(int round) { round_.store(round); }
  void before_answer(std::function<void(const SiteRequest&)> hook) {
    std::lock_guard lock(mu_);
    before_answer_ = std::move(hook);
  }
  std::vector<SiteRequest> requests() {
    std::lock_guard lock(mu_);
    return requests_;
  }
  // How many times each page (host index, path) was requested in `round`.
  std::map<std::pair<size_t, std::string>, int> counts(int round) {
    std::map<std::pair<size_t, std::string>, int> out;
    for (const SiteRequest& r : requests()) {
      if (r.round == round && r.path != "/robots.txt") ++out[{r.host, r.path}];
    }
    return out;
  }
  // Waits until `ready` holds for the requests so far; false after `timeout`.
  bool wait_until(const std::function<bool(const std::vector<SiteRequest>&)>& ready, std::chrono::seconds timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return ready(requests_); });
  }

 private:
  bool bind_all() {
    servers_.clear();
    for (size_t h = 0; h < kRoundNodes; ++h) {
      auto server = std::make_unique<httplib::Server>();
      server->set_keep_alive_timeout(1);
      server->Get(R"(/.*)", [this, h](const httplib::Request& req, httplib::Response& res) { serve(h, req, res); });
      if (!server->bind_to_port(kRoundHosts[h], port_)) return false;
      servers_.push_back(std::move(server));
    }
    return true;
  }

  void serve(size_t host, const httplib::Request& req, httplib::Response& res) {
    const SiteRequest request{host, req.path, round_.load()};
    std::function<void(const SiteRequest&)> hook;
    {
      std::lock_guard lock(mu_);
      hook = before_answer_;
    }
    if (hook) hook(request);
    {
      std::lock_guard lock(mu_);
      requests_.push_back(request);
    }
    cv_.notify_all();
    const std::string& p = req.path;
    std::string links;
    if (host == 0 && p == "/") links = "<a href=\"/a1\">a1</a><a href=\"" + url(1, "/") + "\">b</a>";
    if (host == 0 && p == "/a1" && request.round >= 2) links = "<a href=\"" + url(1, "/new") + "\">new</a>";
    if (host == 1 && p == "/") links = "<a href=\"/b1\">b1</a>";
    const bool exists =
        (host == 0 && (p == "/" || p == "/a1")) || (host == 1 && (p == "/" || p == "/b1" || p == "/new"));
    if (!exists) {
      res.status = 404;
      res.set_content("no", "text/plain");
      return;
    }
    const std::string version = host == 0 && p == "/a1" && request.round >= 2 ? " v2" : "";
    res.set_content("<html><body>" + p + version + links + "</body></html>", "text/html");
  }

  uint16_t port_ = 0;
  std::vector<std::unique_ptr<httplib::Server>> servers_;
  std::vector<std::thread> threads_;
  std::atomic<int> round_{1};
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<SiteRequest> requests_;
  std::function<void(const SiteRequest&)> before_answer_;
};

class ClusterRoundsTest : public ::testing::Test {
 protected:
  void SetUp() override { redis_.start(); }

  CrawlConfig config(int node) {
    CrawlConfig c;
    c.seeds.urls = {site_.url(0, "/")};
    c.scope.allowed_hosts = {kRoundHosts[0], kRoundHosts[1]};
    c.scope.max_depth = -1;
    c.politeness.delay_ms = 0;
    c.fetch.allowed_ranges = {"127.0.0.0/8"};
    c.output.directory = out(node).string();
    c.checkpoint.directory = (dir_.path() / ("ckpt" + std::to_string(node))).string();
    c.recrawl.enabled = true;
    c.cluster = ClusterConfig{redis_.url(), "rounds", kRoundNodes, node};
    RedisClient client(RedisEndpoint{"127.0.0.1", redis_.port()});
    join_cluster(client, cluster_identity(c));
    return c;
  }
  fs::path out(int node) const { return dir_.path() / ("out" + std::to_string(node)); }
  static std::unique_ptr<CrawlCheckpoint> checkpoint_of(const CrawlerSettings& s) {
    return std::make_unique<CrawlCheckpoint>(load_crawl_checkpoint(s.checkpoint.directory));
  }
  std::string redis_text(const std::vector<std::string>& argv) const {
    RedisClient client(RedisEndpoint{"127.0.0.1", redis_.port()});
    const RedisValue v = client.command(argv);
    return v.is_nil() ? "" : v.text();
  }

  testing::RedisServer redis_;
  const testing::TempDir dir_;
  TwoHostSite site_;
};

// Two nodes resumed with --revisit-all: node 0's changed /a1 now links a new page of node 1's host,
// and node 0 gets /a1's answer only once node 1 is idle in the round, its own revisits done. The new
// page is fetched in the round, before both nodes end; every page is revisited once, none twice.
// Blocks until the node hash `key` says idle in round `round`, woken by Redis's keyspace
// notifications of the hash rather than by polling: true when it did within `limit`.
bool wait_for_idle_in_round(uint16_t port, const std::string& key, const std::string& round,
                            std::chrono::milliseconds limit) {
  const std::unique_ptr<redisContext, decltype(&redisFree)> events(redisConnect("127.0.0.1", port), &redisFree);
  if (!events || events->err != 0) return false;
  freeReplyObject(redisCommand(events.get(), "CONFIG SET notify-keyspace-events Kh"));
  freeReplyObject(redisCommand(events.get(), "SUBSCRIBE __keyspace@0__:%s", key.c_str()));
  RedisClient look(RedisEndpoint{"127.0.0.1", port});
  const auto give_up = std::chrono::steady_clock::now() + limit;
  // Looked at after subscribing, and again after each change of the hash: no change is missed.
  for (;;) {
    const RedisValue idle = look.command({"HGET", key, "idle"});
    const RedisValue in_round = look.command({"HGET", key, "round"});
    if (!idle.is_nil() && idle.text() == "1" && !in_round.is_nil() && in_round.text() == round) return true;
    const auto left = std::chrono::duration_cast<std::chrono::microseconds>(give_up - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    redisSetTimeout(events.get(), timeval{.tv_sec = left.count() / 1'000'000, .tv_usec = left.count() % 1'000'000});
    void* change = nullptr;
    if (redisGetReply(events.get(), &change) != REDIS_OK) return false;  // timed out
    freeReplyObject(change);
  }
}

TEST_F(ClusterRoundsTest, ARevisitRoundFetchesTheNewPagesALinkGivesAnotherNode) {
  std::vector<nlohmann::json> first(kRoundNodes);
  testing::run_concurrently(kRoundNodes, [&](int node) {
    first[size_t(node)] = Crawler(testing::checkpointed_settings(config(node))).run();
  });
  for (const nlohmann::json& r : first) ASSERT_EQ(r["crawl"]["stopped_by"], "done") << r.dump(2);
  const std::map<std::pair<size_t, std::string>, int> pages = {
      {{0, "/"}, 1}, {{0, "/a1"}, 1}, {{1, "/"}, 1}, {{1, "/b1"}, 1}};
  ASSERT_EQ(site_.counts(1), pages);

  const std::string node1 = cluster_key("rounds", "node:1");
  std::atomic<bool> node1_was_idle{false};
  site_.set_round(2);
  site_.before_answer([&](const SiteRequest& r) {
    if (r.host != 0 || r.path != "/a1") return;
    // Node 1 idle in round 1: its own revisits are done, and it must still wait for /new.
    node1_was_idle = wait_for_idle_in_round(redis_.port(), node1, "1", std::chrono::seconds(20));
  });
  std::vector<nlohmann::json> second(kRoundNodes);
  testing::run_concurrently(kRoundNodes, [&](int node) {
    CrawlerSettings s = testing::checkpointed_settings(config(node));
    s.revisit_all = true;
    second[size_t(node)] = Crawler(s, checkpoint_of(s)).run();
  });
  site_.before_answer(nullptr);

  EXPECT_TRUE(node1_was_idle.load()) << "node 1 never idle in round 1 while /a1 was held";
  for (const nlohmann::json& r : second) EXPECT_EQ(r["crawl"]["stopped_by"], "done") << r.dump(2);
  std::map<std::pair<size_t, std::string>, int> round2 = pages;
  round2[{1, "/new"}] = 1;
  EXPECT_EQ(site_.counts(2), round2) << "each page once in the round, the new one included";
  EXPECT_EQ(redis_text({"GET", cluster_key("rounds", "round")}), "1");
  EXPECT_EQ(redis_text({"GET", cluster_key("rounds", "done")}), "1");
  // Node 1 recorded the new page, as a page of its own host.
  const auto records = testing::read_page_records(out(1));
  ASSERT_TRUE(records.contains(site_.url(1, "/new")));
  EXPECT_EQ(records.at(site_.url(1, "/new")).size(), 1u);
  EXPECT_EQ(second[1]["revisits"]["revisited"].get<uint64_t>(), 2u);
  EXPECT_EQ(second[0]["revisits"]["revisited"].get<uint64_t>(), 2u);
}

// recrawl.continuous with second-scale intervals: both nodes keep revisiting their pages round
// after round (the status says each node's next due time), until `bloomcrawl stop --cluster` ends
// both with a checkpoint; both resume from it (not continuous, every page due) and revisit each page
// once.
TEST_F(ClusterRoundsTest, AContinuousClusterRevisitsRoundAfterRoundUntilStopped) {
  const auto continuous = [&](int node) {
    CrawlConfig c = config(node);
    c.recrawl.continuous = true;
    c.recrawl.min_interval_s = 1;
    c.recrawl.default_interval_s = 1;
    c.recrawl.max_interval_s = 2;
    return testing::checkpointed_settings(c);
  };
  std::vector<std::unique_ptr<Crawler>> crawlers;
  crawlers.reserve(kRoundNodes);
  for (int node = 0; node < kRoundNodes; ++node) crawlers.push_back(std::make_unique<Crawler>(continuous(node)));
  std::vector<nlohmann::json> reports(kRoundNodes);
  std::vector<std::thread> running;
  running.reserve(kRoundNodes);
  for (int node = 0; node < kRoundNodes; ++node) {
    running.emplace_back([&, node] { reports[size_t(node)] = crawlers[size_t(node)]->run(); });
  }
  // Every page fetched three times (its first fetch and two revisits), and a second revisit round
  // started (the round key is set before the round's requests).
  RedisClient redis(RedisEndpoint{"127.0.0.1", redis_.port()});
  const bool revisited = site_.wait_until(
      [&](const std::vector<SiteRequest>& requests) {
        std::map<std::pair<size_t, std::string>, int> n;
        for (const SiteRequest& r : requests) ++n[{r.host, r.path}];
        if (n[{0, "/"}] < 3 || n[{0, "/a1"}] < 3 || n[{1, "/"}] < 3 || n[{1, "/b1"}] < 3) return false;
        const RedisValue round = redis.command({"GET", cluster_key("rounds", "round")});
        return !round.is_nil() && std::stoll(round.text()) >= 2;
      },
      std::chrono::seconds(30));
  const ClusterStatus status = read_cluster_status(redis, "rounds");
  request_cluster_stop(redis, "rounds");
  for (std::thread& t : running) t.join();
  ASSERT_TRUE(revisited) << "the pages were not revisited twice";
  EXPECT_GE(status.round, 2);
  for (const NodeStatus& n : status.per_node) {
    EXPECT_GT(n.counters.next_due_ms, 0) << "node " << n.node << ": no next due time";
    EXPECT_GE(n.round, 1) << "node " << n.node;
  }
  for (const nlohmann::json& r : reports) {
    EXPECT_EQ(r["crawl"]["stopped_by"], "stop") << r.dump(2);
    EXPECT_GE(r["revisits"]["revisited"].get<uint64_t>(), 2u) << r.dump(2);  // each page once at least
  }
  // Each node revisited only its own host's pages.
  for (const SiteRequest& r : site_.requests()) EXPECT_NE(r.path, "/new");
  crawlers.clear();

  // The checkpoints the stop wrote: a resume of both revisits every page once and ends.
  const size_t before = site_.requests().size();
  std::vector<nlohmann::json> resumed(kRoundNodes);
  testing::run_concurrently(kRoundNodes, [&](int node) {
    CrawlerSettings s = testing::checkpointed_settings(config(node));
    s.revisit_all = true;
    resumed[size_t(node)] = Crawler(s, checkpoint_of(s)).run();
  });
  for (const nlohmann::json& r : resumed) EXPECT_EQ(r["crawl"]["stopped_by"], "done") << r.dump(2);
  std::map<std::pair<size_t, std::string>, int> after;
  const std::vector<SiteRequest> all = site_.requests();
  for (size_t i = before; i < all.size(); ++i) {
    if (all[i].path != "/robots.txt") ++after[{all[i].host, all[i].path}];
  }
  const std::map<std::pair<size_t, std::string>, int> once = {
      {{0, "/"}, 1}, {{0, "/a1"}, 1}, {{1, "/"}, 1}, {{1, "/b1"}, 1}};
  EXPECT_EQ(after, once);
}

}  // namespace
}  // namespace bloomcrawl
