// Cluster tests partition the test web's hosts by "host:port" (host_partition.h), so which node
// owns which host changes with the port the web listens on. These pick the port instead: a free
// one on 127.0.0.2 for which the partition has the shape the test needs.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "crawler/cluster/host_partition.h"

namespace bloomcrawl::testing {

// A port nothing listens on at the call, on 127.0.0.2, for which `wanted(port)` holds. The web
// started next on it must cope with losing a race for it (TestWeb throws naming the port).
inline uint16_t free_port_where(const std::function<bool(uint16_t)>& wanted) {
  for (;;) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 1);  // 127.0.0.2
    socklen_t len = sizeof addr;
    const bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ::close(fd);
    if (!bound) throw std::runtime_error("free_port_where: cannot bind 127.0.0.2");
    const uint16_t port = ntohs(addr.sin_port);
    if (wanted(port)) return port;
  }
}

// A port on which each of `nodes` nodes owns at least one of `hosts`: every node has a crawl.
inline uint16_t port_giving_every_node_a_host(const std::vector<std::string>& hosts, uint32_t nodes) {
  return free_port_where([&](uint16_t port) {
    const HostPartition partition(nodes);
    std::set<uint32_t> owners;
    for (const std::string& h : hosts) owners.insert(partition.owner(h + ":" + std::to_string(port)));
    return owners.size() == nodes;
  });
}

}  // namespace bloomcrawl::testing
