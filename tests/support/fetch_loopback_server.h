// LoopbackHttpServer: a cpp-httplib server on 127.0.0.1:<ephemeral> for fetcher tests. It records
// which client connections (remote ports) sent requests, so tests can see keep-alive reuse from the
// server side, and it replies without Nagle delays so many small requests stay fast.
// Register handlers on server() before start(); stop() (or the destructor) joins the server.
#pragma once

#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace bloomcrawl::testing {

class LoopbackHttpServer {
 public:
  LoopbackHttpServer() {
    server_.set_keep_alive_max_count(100000);
    // Accepted sockets inherit TCP_NODELAY from the listening socket (Linux).
    server_.set_socket_options([](int sock) {
      const int on = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
      setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    });
    // Recorded before the handler runs, so the port is known by the time the client has a reply.
    server_.set_pre_routing_handler([this](const httplib::Request& request, httplib::Response&) {
      std::lock_guard lock(mutex_);
      client_ports_.insert(request.remote_port);
      return httplib::Server::HandlerResponse::Unhandled;
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
  }
  ~LoopbackHttpServer() { stop(); }
  LoopbackHttpServer(const LoopbackHttpServer&) = delete;
  LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

  httplib::Server& server() { return server_; }
  void start() {
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // cpp-httplib's stop() is a no-op until the accept loop runs, and it offers no event to wait
    // on, so spin until it does.
    while (!server_.is_running()) std::this_thread::yield();
  }
  void stop() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  int port() const { return port_; }
  size_t connections() {
    std::lock_guard lock(mutex_);
    return client_ports_.size();
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mutex_;
  std::set<int> client_ports_;
};

}  // namespace bloomcrawl::testing
