// Cluster tests partition the test web's hosts by "host:port" (host_partition.h), so which node
// owns which host changes with the port the web listens on. These pick the port instead: a free
// one on 127.0.0.2 for which the partition has the shape the test needs.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <functional>
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

// A port on which `hosts` are shared evenly: each of `nodes` nodes owns hosts.size() / nodes of
// them, rounded down or up. Every node then has a crawl of about its share: with only "a host
// each", a node of three could own one host of six, finish its sixth of the web early, and be
// gone before a test's "mid-crawl" kill or hold (ClusterCrawlTest, ASan, 2026-12-07).
inline uint16_t port_sharing_hosts_evenly(const std::vector<std::string>& hosts, uint32_t nodes) {
  return free_port_where([&](uint16_t port) {
    const HostPartition partition(nodes);
    std::vector<size_t> owned(nodes);
    for (const std::string& h : hosts) ++owned[partition.owner(h + ":" + std::to_string(port))];
    return std::all_of(owned.begin(), owned.end(),
                       [&](size_t n) { return n == hosts.size() / nodes || n == (hosts.size() + nodes - 1) / nodes; });
  });
}

}  // namespace bloomcrawl::testing
