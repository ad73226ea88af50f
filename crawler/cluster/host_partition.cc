#include "crawler/cluster/host_partition.h"

#include <xxhash.h>

#include <stdexcept>

namespace bloomcrawl {

HostPartition::HostPartition(uint32_t nodes) : nodes_(nodes) {
  if (nodes == 0) throw std::invalid_argument("a cluster has at least one node");
}

uint32_t HostPartition::owner(std::string_view host) const {
  uint32_t best = 0;
  uint64_t best_score = 0;
  for (uint32_t node = 0; node < nodes_; ++node) {
    const uint64_t score = XXH3_64bits_withSeed(host.data(), host.size(), node);
    if (node == 0 || score > best_score) {
      best = node;
      best_score = score;
    }
  }
  return best;
}

}  // namespace bloomcrawl
