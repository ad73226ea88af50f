// unused_loopback_port(): a TCP port on 127.0.0.1 that nothing listens on at the moment of the call
// (bound so the kernel picks it, then closed unlistened). A test may use it as a port that refuses
// connections, or hand it to a server it starts next (which must cope with losing a race for it).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace bloomcrawl::testing {

inline int unused_loopback_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) address.sin_port = 0;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

}  // namespace bloomcrawl::testing
