#include "crawler/pipeline/duplicate_counts.h"

#include <algorithm>
#include <functional>

namespace bloomcrawl {

DuplicateCounts::DuplicateCounts(size_t capacity_per_shard) {
  for (auto& shard : shards_) shard = std::make_unique<Shard>(capacity_per_shard);
}

DuplicateCounts::Shard& DuplicateCounts::shard_of(const std::string& host) {
  return *shards_[std::hash<std::string>{}(host) % kShards];
}

void DuplicateCounts::add(const std::string& host, const char* link_kind) {
  Shard& shard = shard_of(host);
  std::lock_guard<std::mutex> lock(shard.mu);
  shard.hosts.add(host);
  ++shard.total;
  ++shard.by_kind[link_kind];
}

void DuplicateCounts::add_host(const std::string& host, uint64_t n) {
  Shard& shard = shard_of(host);
  std::lock_guard<std::mutex> lock(shard.mu);
  shard.hosts.add(host, n);
  shard.total += n;
}

void DuplicateCounts::add_kind(const std::string& link_kind, uint64_t n) {
  Shard& shard = *shards_[0];
  std::lock_guard<std::mutex> lock(shard.mu);
  shard.by_kind[link_kind] += n;
}

void DuplicateCounts::add_others(uint64_t n) {
  Shard& shard = *shards_[0];
  std::lock_guard<std::mutex> lock(shard.mu);
  shard.total += n;
}

std::vector<std::pair<std::string, uint64_t>> DuplicateCounts::top(size_t limit) const {
  // A host lives in one shard only, so the overall top is among the shards' tops.
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const auto& shard : shards_) {
    std::lock_guard<std::mutex> lock(shard->mu);
    for (auto& entry : shard->hosts.top(limit)) out.push_back(std::move(entry));
  }
  const auto more = [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  };
  const size_t kept = std::min(limit, out.size());
  std::partial_sort(out.begin(), out.begin() + std::ptrdiff_t(kept), out.end(), more);
  out.resize(kept);
  return out;
}

uint64_t DuplicateCounts::others(const std::vector<std::pair<std::string, uint64_t>>& top) const {
  uint64_t total = 0;
  for (const auto& shard : shards_) {
    std::lock_guard<std::mutex> lock(shard->mu);
    total += shard->total;
  }
  uint64_t in_top = 0;
  for (const auto& [host, n] : top) in_top += n;
  return total > in_top ? total - in_top : 0;
}

std::map<std::string, uint64_t> DuplicateCounts::by_kind() const {
  std::map<std::string, uint64_t> out;
  for (const auto& shard : shards_) {
    std::lock_guard<std::mutex> lock(shard->mu);
    for (const auto& [kind, n] : shard->by_kind) out[kind] += n;
  }
  return out;
}

}  // namespace bloomcrawl
