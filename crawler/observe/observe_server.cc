#include "crawler/observe/observe_server.h"

#include <utility>

#include "crawler/observe/prometheus_text.h"
#include "crawler/observe/status_json.h"
#include "crawler/observe/status_page.h"

namespace bloomcrawl {
namespace {

double unix_now() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

}  // namespace

ObserveServer::ObserveServer(ListenAddress address, LiveReport live, const std::vector<std::string>& allowed_hosts)
    : address_(std::move(address)),
      live_(std::move(live)),
      started_(std::chrono::steady_clock::now()),
      allowed_hosts_(address_.host, allowed_hosts),
      server_(std::make_unique<BoundedHttpServer>(address_,
                                                  [this](const HttpRequestHead& request) { return answer(request); })) {
  sampling_ = std::thread([this] { sample_every_second(); });
}

ObserveServer::~ObserveServer() {
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  sampling_.join();
  server_.reset();  // no request runs once it is gone
}

std::string ObserveServer::url() const {
  const bool ipv6 = address_.host.find(':') != std::string::npos;
  return "http://" + (ipv6 ? "[" + address_.host + "]" : address_.host) + ":" + std::to_string(port()) + "/";
}

HttpResponse ObserveServer::answer(const HttpRequestHead& request) const {
  const std::vector<std::string_view> host = request.values("host");
  if (!host.empty() && !allowed_hosts_.allows(host.front())) {
    return {421, "text/plain; charset=utf-8", "this port answers only its own address (metrics.allowed_hosts)\n", {}};
  }
  const std::string_view path = request.path();
  if (path == "/metrics") return {200, "text/plain; version=0.0.4; charset=utf-8", prometheus_text(live_()), {}};
  if (path == "/status.json") {
    // Texts from crawled servers are made UTF-8 where they enter the report; `replace` keeps any
    // other byte that slips through from failing the whole document.
    std::string body = status().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return {200, "application/json", std::move(body), {{"Cache-Control", "no-store"}}};
  }
  if (path == "/") return {200, "text/html; charset=utf-8", std::string(status_page_html()), {}};
  return {404, "text/plain; charset=utf-8", "not found: try /, /metrics or /status.json\n", {}};
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
