// BoundedHttpServer: the status port's HTTP/1.1 server, made to be left on (docs/metrics.md,
// "Safe to leave on"). Whatever clients do, it holds a fixed amount of memory and keeps answering:
//   - one thread runs a poll() loop over non-blocking sockets; a silent or slow client holds no
//     thread, only one of kMaxConnections slots, and a new connection takes the oldest slot when
//     all are in use;
//   - a request's head must arrive within `timeouts.head` of its connection and fit in
//     kMaxHeadBytes and kMaxHeadFields (http_request_head.h): over either bound 431, too slow the
//     connection is closed;
//   - only GET and HEAD are served (405 otherwise), and a request announcing a body
//     (Content-Length other than 0, or any Transfer-Encoding) gets 413 before a byte of it is read;
//   - one request per connection (Connection: close); after the response the connection is drained
//     for a moment (at most kMaxDrainBytes) so the client reads the answer rather than a reset.
// The handler runs on the loop thread, one request at a time: it must be quick (the status port's
// handlers build a report from counters).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "config/listen_address.h"
#include "crawler/observe/http_request_head.h"

namespace bloomcrawl {

struct HttpResponse {
  int status = 200;
  std::string content_type;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // more fields, e.g. Cache-Control
};

struct HttpServerTimeouts {
  std::chrono::milliseconds head{2000};      // from accept to the head's last byte
  std::chrono::milliseconds response{5000};  // from the head to the response's last byte
  std::chrono::milliseconds drain{500};      // reading what the client still sends, then close
};

class BoundedHttpServer {
 public:
  static constexpr size_t kMaxConnections = 32;
  static constexpr size_t kMaxDrainBytes = 64 << 10;

  // Called for every well-formed GET or HEAD (the server drops a HEAD response's body itself).
  using Handler = std::function<HttpResponse(const HttpRequestHead&)>;

  // Binds `address` (port 0: any free port) and starts serving; throws std::runtime_error naming
  // the address when it cannot bind.
  BoundedHttpServer(const ListenAddress& address, Handler handler, HttpServerTimeouts timeouts = {});
  ~BoundedHttpServer();  // stops serving, closes every connection
  BoundedHttpServer(const BoundedHttpServer&) = delete;
  BoundedHttpServer& operator=(const BoundedHttpServer&) = delete;

  uint16_t port() const { return port_; }
  // Connections open now (for tests: the slots silent clients hold).
  size_t connections() const { return open_connections_.load(); }

 private:
  struct Connection;
  void serve();
  void accept_all(std::vector<Connection>& connections) const;
  void on_readable(Connection& c) const;
  void respond(Connection& c, const HttpResponse& response, bool head_only) const;
  void send_some(Connection& c) const;

  Handler handler_;
  HttpServerTimeouts timeouts_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: the destructor's stop signal
  uint16_t port_ = 0;
  std::atomic<size_t> open_connections_{0};
  std::thread thread_;
};

// "200 OK", "405 Method Not Allowed", ...: the reason phrases the server uses.
const char* http_reason(int status);

}  // namespace bloomcrawl
