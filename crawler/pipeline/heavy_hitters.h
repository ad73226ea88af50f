// HeavyHitters: the keys counted most often in a stream of unbounded distinct keys (report.json's
// hosts with the most duplicate links), in bounded memory: Metwally et al.'s Space-Saving with
// `capacity` counters. While at most `capacity` distinct keys have been counted, counts are exact;
// after that a new key takes the place of the smallest counter and inherits its count + n, so a
// count may overstate its key by at most the smallest count, and every key counted more often than
// total / capacity is present. Not thread-safe (CrawlStats holds its lock around it).
//
// add() is on the crawl's hot path (every duplicate link): counters sit in a min-heap of slots and
// a replaced key reuses its slot and hash node, so once full it allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
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
  size_t size() const { return index_.size(); }

 private:
  struct Slot {
    uint64_t count = 0;
    uint32_t heap_pos = 0;
    const std::string* key = nullptr;  // the key of index_'s node for this slot
  };
  // Smaller count first. Among equal counts any may be replaced (Space-Saving's bounds hold for
  // each): comparing counts only keeps the keys' memory out of every heap step.
  bool before(uint32_t a, uint32_t b) const { return slots_[a].count < slots_[b].count; }
  void sift_down(uint32_t pos);
  void sift_up(uint32_t pos);
  void place(uint32_t pos, uint32_t slot);

  const size_t capacity_;
  std::unordered_map<std::string, uint32_t> index_;  // key -> slot
  std::vector<Slot> slots_;
  std::vector<uint32_t> heap_;  // slots, smallest first
};

}  // namespace bloomcrawl
