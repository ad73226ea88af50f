// TestWeb: the local multi-host test web the crawler's integration tests, the demo and the
// benchmarks crawl. Several loopback hosts (127.0.0.2, .3, .4 by default) share one port and serve
// a deterministic generated site (site_model.h) full of equivalent URL spellings, redirects, errors,
// robots.txt rules, nofollow links and an infinite trap. Every request is logged server-side
// (fetch_log.h) so a test can assert on duplicate fetches, robots violations and politeness.
//
// Lifecycle: construct, start() (binds every host or throws std::runtime_error naming the address),
// crawl, read summary()/requests(), stop() (also done by the destructor). Features, ground-truth
// rules and control endpoints: docs/testweb.md.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/fetch_log.h"
#include "tests/support/site_model.h"
#include "tests/support/site_truth.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace bloomcrawl::testweb {

struct TestWebOptions {
  std::vector<std::string> hosts{"127.0.0.2", "127.0.0.3", "127.0.0.4"};
  uint16_t port = 0;  // 0: an ephemeral port (the same one on every host), retried if taken
  uint32_t pages_per_host = 60;
  uint64_t seed = 1;
  uint32_t max_depth_for_truth = 10;  // the default depth of the ground truth endpoint/file
  bool robots = true;
  bool trap = true;
  std::chrono::milliseconds response_delay{0};  // simulated server latency, per request
  size_t threads_per_host = 32;                 // so the server never throttles a crawler
  // How long an idle keep-alive connection stays open. stop() waits for idle connections that the
  // client still holds open to time out (httplib cannot interrupt them), so keep it short.
  std::chrono::seconds keep_alive_timeout{1};
};

class TestWeb {
 public:
  explicit TestWeb(TestWebOptions options);
  ~TestWeb();
  TestWeb(const TestWeb&) = delete;
  TestWeb& operator=(const TestWeb&) = delete;

  void start();
  void stop();

  uint16_t port() const { return port_; }
  const TestWebOptions& options() const { return options_; }
  // The crawl seed: the first host's home page, "http://127.0.0.2:<port>/".
  std::string seed_url() const;
  // The canonical URL "http://<hosts[host]>:<port>" + path_query (no ":80" on port 80).
  std::string url(size_t host, const std::string& path_query) const;
  const Site& site() const;  // valid after start()

  // Sorted canonical URLs a correct crawler fetches from seed_url() (rules: site_truth.h).
  std::vector<std::string> ground_truth(uint32_t max_depth) const;
  GroundTruth ground_truth_detail(uint32_t max_depth) const;
  uint32_t site_depth() const;  // max_depth from which only the trap grows with depth
  // {seed_url, max_depth, site_depth, urls: [...], entries: [{url, depth, status, trap}]}
  nlohmann::json ground_truth_json(uint32_t max_depth) const;

  FetchLogSummary summary() const { return log_.summary(); }
  std::vector<LoggedRequest> requests() const { return log_.requests(); }
  void clear_log();
  SteadyTime started_at() const { return started_at_; }

  // Test hooks for concurrency assertions: while held, requests are logged (and counted in flight)
  // but not answered until release_responses() or stop().
  void hold_responses();
  void release_responses();
  // Holds as hold_responses() does from the n-th page request on (robots.txt excluded; counted
  // since start() or clear_log(); the next one if n have already begun), that request included,
  // so a crawl stops at a known point however late the test's thread runs. One-shot: after
  // release_responses() requests are answered again.
  void hold_responses_from_page_request(uint64_t n);
  // Waits until that hold has begun: the host of the page request that began it (held until
  // release_responses()); nullopt on timeout.
  std::optional<std::string> wait_for_hold(std::chrono::milliseconds timeout) const;
  // Waits until at least n requests are in flight (over all hosts); false on timeout.
  bool wait_for_in_flight(uint32_t n, std::chrono::milliseconds timeout) const;
  // Waits until at least n page requests (robots.txt excluded) have arrived; false on timeout.
  bool wait_for_page_requests(uint64_t n, std::chrono::milliseconds timeout) const;
  // Waits until `ready` holds for the request log, looked at again as each request begins and ends;
  // false on timeout.
  bool wait_for_requests(const std::function<bool(const std::vector<LoggedRequest>&)>& ready,
                         std::chrono::milliseconds timeout) const;

 private:
  void bind_all();
  void handle(size_t host, const httplib::Request& request, httplib::Response& response);
  void handle_control(const httplib::Request& request, httplib::Response& response) const;

  TestWebOptions options_;
  uint16_t port_ = 0;
  std::optional<Site> site_;
  std::vector<std::unique_ptr<httplib::Server>> servers_;
  std::vector<std::thread> threads_;
  FetchLog log_;
  SteadyTime started_at_{};

  mutable std::mutex hold_mutex_;
  mutable std::condition_variable hold_changed_;
  bool holding_ = false;
  uint64_t page_requests_begun_ = 0;
  std::optional<uint64_t> hold_from_page_request_;
  std::optional<std::string> hold_began_at_host_;
  bool stopping_ = false;
};

}  // namespace bloomcrawl::testweb
