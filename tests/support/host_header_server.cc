#include "tests/support/host_header_server.h"

#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <chrono>
#include <stdexcept>

#include "tests/support/listen_backlog.h"

namespace bloomcrawl::testing {

std::unique_ptr<httplib::Server> host_header_server(size_t threads) {
  auto server = std::make_unique<httplib::Server>();
  server->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server->set_keep_alive_timeout(1);
  server->set_keep_alive_max_count(1000);
  // Without TCP_NODELAY a kept-alive connection answers a request in two writes that Nagle and
  // the client's delayed ACK hold ~40 ms apart (fresh connections escape it in quick-ACK mode), so
  // a crawl of few hosts would measure that stall instead of the crawler. Accepted sockets
  // inherit the option from the listening one (Linux).
  server->set_socket_options([](int sock) {
    const int on = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  });
  return server;
}

uint16_t listen_on_loopback(httplib::Server& server, uint16_t port, std::thread& thread, const std::string& what) {
  const int bound =
      port == 0 ? server.bind_to_any_port("127.0.0.1") : (server.bind_to_port("127.0.0.1", port) ? port : -1);
  if (bound <= 0) throw std::runtime_error(what + ": cannot listen on 127.0.0.1:" + std::to_string(port));
  widen_listen_backlog(bound);  // a new connection per request arrives in bursts
  thread = std::thread([&server] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return uint16_t(bound);
}

}  // namespace bloomcrawl::testing
