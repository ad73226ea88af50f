// ObserveServer: the crawl's live view on one HTTP port (docs/metrics.md):
//   GET /metrics      Prometheus text exposition (prometheus_text.h)
//   GET /status.json  the status page's data (status_json.h)
//   GET /             the status page itself (status_page.h), which polls /status.json
// Served by BoundedHttpServer (bounded_http_server.h: GET and HEAD only, no request bodies, bounded
// heads, timeouts, one thread), with prometheus-cpp's core doing the exposition format. A request
// whose Host header the HostAllowlist refuses (DNS rebinding) gets 421.
// Every request and a sampler thread (once a second, for the charts' last hour) call `live`, which
// must be safe from any thread (Crawler::live_report()). The crawl pays nothing while nobody looks
// but that one call a second.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/listen_address.h"
#include "crawler/observe/bounded_http_server.h"
#include "crawler/observe/host_allowlist.h"
#include "crawler/observe/status_history.h"

namespace bloomcrawl {

class ObserveServer {
 public:
  using LiveReport = std::function<nlohmann::json()>;

  // Binds `address` (port 0: any free port) and starts serving; throws std::runtime_error naming
  // the address when it cannot bind. `allowed_hosts`: metrics.allowed_hosts (host_allowlist.h).
  ObserveServer(ListenAddress address, LiveReport live, const std::vector<std::string>& allowed_hosts = {});
  ~ObserveServer();  // stops serving and sampling
  ObserveServer(const ObserveServer&) = delete;
  ObserveServer& operator=(const ObserveServer&) = delete;

  uint16_t port() const { return server_->port(); }
  // "http://HOST:PORT/" with the port bound.
  std::string url() const;

 private:
  void sample_every_second();
  HttpResponse answer(const HttpRequestHead& request) const;
  nlohmann::json status() const;

  ListenAddress address_;
  LiveReport live_;
  std::chrono::steady_clock::time_point started_;
  StatusHistory history_;
  HostAllowlist allowed_hosts_;
  std::unique_ptr<BoundedHttpServer> server_;
  std::thread sampling_;
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;  // under stop_mu_
};

}  // namespace bloomcrawl
