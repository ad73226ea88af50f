// DuplicateCounts: the duplicate links of a crawl counted by host and by link kind, from every
// parse worker at once. Every duplicate link is counted here, so one global lock would serialize
// the workers on the hot path: a host's counts live in one of kShards shards chosen by its hash,
// each with its own lock, its own HeavyHitters (heavy_hitters.h) and its own counts by kind, so two
// workers contend only when their hosts share a shard. Bounded: kShards * capacity_per_shard host
// counters however many hosts the crawl meets; top() keeps the largest, and others() sums every
// count not among them, so the report stays small and its numbers still add up to the total.
// Exact while no shard has met more than capacity_per_shard hosts (Space-Saving estimates beyond).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "crawler/pipeline/heavy_hitters.h"

namespace bloomcrawl {

class DuplicateCounts {
 public:
  static constexpr size_t kShards = 16;

  explicit DuplicateCounts(size_t capacity_per_shard);

  void add(const std::string& host, const char* link_kind);
  // Counts saved by an earlier run of the crawl (a resume): a top host, a kind, or counts whose
  // hosts were not among the top ones then.
  void add_host(const std::string& host, uint64_t n);
  void add_kind(const std::string& link_kind, uint64_t n);
  void add_others(uint64_t n);

  // The `limit` hosts with the most duplicates, most first (ties by host).
  std::vector<std::pair<std::string, uint64_t>> top(size_t limit) const;
  // Every count by host not in `top` (exact once no worker adds any more).
  uint64_t others(const std::vector<std::pair<std::string, uint64_t>>& top) const;
  std::map<std::string, uint64_t> by_kind() const;

 private:
  struct Shard {
    explicit Shard(size_t capacity) : hosts(capacity) {}
    mutable std::mutex mu;
    HeavyHitters hosts;
    std::map<std::string, uint64_t> by_kind;
    uint64_t total = 0;  // every count by host this shard took, evicted ones included
  };
  Shard& shard_of(const std::string& host);

  std::array<std::unique_ptr<Shard>, kShards> shards_;
};

}  // namespace bloomcrawl
