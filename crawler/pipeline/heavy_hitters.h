// HeavyHitters: the keys counted most often in a stream of unbounded distinct keys (report.json's
// hosts with the most duplicate links), in bounded memory: Metwally et al.'s Space-Saving with
// `capacity` counters. While at most `capacity` distinct keys have been counted, counts are exact;
// after that a new key takes the place of the smallest counter and inherits its count + n, so a
// count may overstate its key by at most the smallest count, and every key counted more often than
// total / capacity is present. Not thread-safe (CrawlStats holds its lock around it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace bloomcrawl {

class HeavyHitters {
 public:
  explicit HeavyHitters(size_t capacity) : capacity_(capacity) {}

  void add(const std::string& key, uint64_t n = 1);
  // The `limit` largest counts, largest first (ties by key).
  std::vector<std::pair<std::string, uint64_t>> top(size_t limit) const;
  size_t size() const { return counts_.size(); }

 private:
  using Entry = std::pair<uint64_t, const std::string*>;  // count, key (owned by counts_)
  struct ByCount {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.first != b.first ? a.first < b.first : *a.second < *b.second;
    }
  };

  const size_t capacity_;
  std::unordered_map<std::string, uint64_t> counts_;
  std::set<Entry, ByCount> by_count_;  // the same counters, smallest first
};

}  // namespace bloomcrawl
