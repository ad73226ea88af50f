// ObserveServer: the crawl's live view on one HTTP port (docs/metrics.md):
//   GET /metrics      Prometheus text exposition (prometheus_text.h)
//   GET /status.json  the status page's data (status_json.h)
//   GET /             the status page itself (status_page.h), which polls /status.json
// Served with cpp-httplib, not prometheus-cpp's pull Exposer: the Exposer (civetweb) serves only
// registered Collectables, so it could not serve the page or its JSON; one small server for all
// three, with prometheus-cpp's core doing the exposition format, keeps one port and one thread pool.
// Every request and a sampler thread (once a second, for the charts' last hour) call `live`, which
// must be safe from any thread (Crawler::live_report()). The crawl pays nothing while nobody looks
// but that one call a second.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "config/listen_address.h"
#include "crawler/observe/status_history.h"

namespace httplib {
class Server;
}

namespace bloomcrawl {

class ObserveServer {
 public:
  using LiveReport = std::function<nlohmann::json()>;

  // Binds `address` (port 0: any free port) and starts serving; throws std::runtime_error naming
  // the address when it cannot bind.
  ObserveServer(ListenAddress address, LiveReport live);
  ~ObserveServer();  // stops serving and sampling
  ObserveServer(const ObserveServer&) = delete;
  ObserveServer& operator=(const ObserveServer&) = delete;

  uint16_t port() const { return port_; }
  // "http://HOST:PORT/" with the port bound.
  std::string url() const;

 private:
  void sample_every_second();
  nlohmann::json status() const;

  ListenAddress address_;
  LiveReport live_;
  std::chrono::steady_clock::time_point started_;
  StatusHistory history_;
  std::unique_ptr<httplib::Server> server_;
  uint16_t port_ = 0;
  std::thread serving_;
  std::atomic<bool> serving_ended_{false};  // listen_after_bind() returned
  std::thread sampling_;
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;  // under stop_mu_
};

}  // namespace bloomcrawl
