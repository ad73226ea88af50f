// The HTTP server of a web of many host names on 127.0.0.1, answered by the Host header (the open
// web, the shop web): a pool of `threads`, short keep-alives, TCP_NODELAY and a wide listen backlog
// (docs/testweb.md gives the measurements behind both socket settings).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <thread>

namespace httplib {
class Server;
}  // namespace httplib

namespace bloomcrawl::testing {

std::unique_ptr<httplib::Server> host_header_server(size_t threads);

// Binds `server` to 127.0.0.1:`port` (0: any free port) or throws std::runtime_error naming
// `what`; starts it listening on `thread` and returns once it runs (a stop() before then would be
// lost). Returns the port.
uint16_t listen_on_loopback(httplib::Server& server, uint16_t port, std::thread& thread, const std::string& what);

}  // namespace bloomcrawl::testing
