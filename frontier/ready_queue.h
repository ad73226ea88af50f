// ReadyQueue: the politeness keys that have dispatchable work, ordered by the time each may next be
// contacted (Mercator's host heap). An indexed binary min-heap: each id knows its slot, so a key can
// be moved earlier or later or removed in O(log n) with no stale entries piling up. Ties go to the
// id that was placed first, because a dispatched key is re-placed at `now`, behind keys that were
// already waiting — round-robin among ready hosts. Not thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

namespace bloomcrawl {

class ReadyQueue {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  // Inserts `id` or moves it to `ready_at`, behind every entry already waiting at that time.
  void place(uint32_t id, TimePoint ready_at);
  // The time `id` is queued for; requires contains(id).
  TimePoint time_of(uint32_t id) const { return heap_[slot_of_[id]].ready_at; }
  void remove(uint32_t id);
  bool contains(uint32_t id) const;

  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  // The earliest entry. Requires !empty().
  uint32_t top_id() const { return heap_.front().id; }
  TimePoint top_time() const { return heap_.front().ready_at; }
  std::optional<TimePoint> earliest() const;

  size_t allocated_bytes() const;

 private:
  static constexpr uint32_t kAbsent = UINT32_MAX;
  struct Entry {
    TimePoint ready_at;
    uint64_t sequence;  // placement order, breaks ties first-come first-served
    uint32_t id;
  };
  static bool before(const Entry& a, const Entry& b) {
    return a.ready_at != b.ready_at ? a.ready_at < b.ready_at : a.sequence < b.sequence;
  }
  void set_slot(size_t slot, Entry entry);
  void sift_up(size_t slot);
  void sift_down(size_t slot);

  std::vector<Entry> heap_;
  std::vector<uint32_t> slot_of_;  // id -> slot in heap_, kAbsent when not queued
  uint64_t next_sequence_ = 0;
};

}  // namespace bloomcrawl
