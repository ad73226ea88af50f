// widen_listen_backlog: Debian's cpp-httplib is a compiled library that listens with a backlog of 5
// (CPPHTTPLIB_LISTEN_BACKLOG cannot be changed from here). A burst of new connections overflows
// it, the kernel drops their SYNs, and each dropped one stalls its client for a 1 s retransmit,
// which would make the test web, not the crawler, the bottleneck of a many-host crawl. Linux lets
// listen() be called again on a listening socket to change its backlog: this finds the server's
// socket by its address and does that (nginx listens with 511; the kernel caps it at somaxconn).
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>

namespace bloomcrawl::testing {

// Every listening IPv4 TCP socket of this process bound to `port` gets `backlog`; returns how many.
inline int widen_listen_backlog(int port, int backlog = 1024) {
  int widened = 0;
  for (int fd = 0; fd < 4096; ++fd) {
    int listening = 0;
    socklen_t size = sizeof listening;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) != 0 || listening == 0) continue;
    sockaddr_in address{};
    socklen_t length = sizeof address;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0 || address.sin_family != AF_INET) {
      continue;
    }
    if (ntohs(address.sin_port) == port && listen(fd, backlog) == 0) ++widened;
  }
  return widened;
}

}  // namespace bloomcrawl::testing
