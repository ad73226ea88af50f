// HostPartition: which node of an N-node cluster owns a host, by rendezvous (highest-random-weight)
// hashing. Node i scores a host XXH3-64(host, seed = i); the highest score wins (ties, which need
// a 64-bit collision, go to the lower index). Every host has exactly one owner, the answer depends
// only on the host's bytes and N (stable across runs, builds and machines), and growing N to N+1
// moves only the hosts the new node wins, about 1/(N+1) of them. The key is the host as the frontier
// keys politeness, so one node alone keeps each host's delay (docs/cluster.md).
#pragma once

#include <cstdint>
#include <string_view>

namespace bloomcrawl {

class HostPartition {
 public:
  // nodes >= 1; throws std::invalid_argument otherwise.
  explicit HostPartition(uint32_t nodes);

  uint32_t nodes() const { return nodes_; }
  uint32_t owner(std::string_view host) const;

 private:
  uint32_t nodes_;
};

}  // namespace bloomcrawl
