#include "crawler/observe/observe_server.h"

#include <httplib.h>

#include <stdexcept>
#include <utility>

#include "crawler/observe/prometheus_text.h"
#include "crawler/observe/status_json.h"
#include "crawler/observe/status_page.h"

namespace bloomcrawl {
namespace {

double unix_now() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

}  // namespace

ObserveServer::ObserveServer(ListenAddress address, LiveReport live)
    : address_(std::move(address)),
      live_(std::move(live)),
      started_(std::chrono::steady_clock::now()),
      server_(std::make_unique<httplib::Server>()) {
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(prometheus_text(live_()), "text/plain; version=0.0.4; charset=utf-8");
  });
  server_->Get("/status.json", [this](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    res.set_content(status().dump(), "application/json");
  });
  server_->Get("/", [](const httplib::Request&, httplib::Response& res) {
    const std::string_view page = status_page_html();
    res.set_content(page.data(), page.size(), "text/html; charset=utf-8");
  });
  const int port = address_.port == 0 ? server_->bind_to_any_port(address_.host)
                                      : (server_->bind_to_port(address_.host, address_.port) ? address_.port : -1);
  if (port <= 0) {
    throw std::runtime_error("metrics: cannot listen on " + address_.host + ":" + std::to_string(address_.port));
  }
  port_ = uint16_t(port);
  serving_ = std::thread([this] {
    server_->listen_after_bind();
    serving_ended_ = true;
  });
  // httplib's stop() does nothing until listen_after_bind() has marked the server running, so a
  // crawl over at once would leave the destructor joining a server that never stops.
  while (!server_->is_running() && !serving_ended_) std::this_thread::yield();
  sampling_ = std::thread([this] { sample_every_second(); });
}

ObserveServer::~ObserveServer() {
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  sampling_.join();
  server_->stop();
  serving_.join();
}

std::string ObserveServer::url() const {
  const bool ipv6 = address_.host.find(':') != std::string::npos;
  return "http://" + (ipv6 ? "[" + address_.host + "]" : address_.host) + ":" + std::to_string(port_) + "/";
}

void ObserveServer::sample_every_second() {
  std::unique_lock<std::mutex> lock(stop_mu_);
  auto next = std::chrono::steady_clock::now();
  while (!stopping_) {
    lock.unlock();
    history_.add(status_sample(live_(), unix_now()));
    lock.lock();
    next += std::chrono::seconds(1);
    stop_cv_.wait_until(lock, next, [this] { return stopping_; });
  }
}

nlohmann::json ObserveServer::status() const {
  const double uptime = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  return status_json(live_(), history_, unix_now(), uptime);
}

}  // namespace bloomcrawl
