#include "frontier/ready_queue.h"

#include <utility>

namespace bloomcrawl {

bool ReadyQueue::contains(uint32_t id) const { return id < slot_of_.size() && slot_of_[id] != kAbsent; }

std::optional<ReadyQueue::TimePoint> ReadyQueue::earliest() const {
  if (heap_.empty()) return std::nullopt;
  return heap_.front().ready_at;
}

void ReadyQueue::set_slot(size_t slot, Entry entry) {
  slot_of_[entry.id] = static_cast<uint32_t>(slot);
  heap_[slot] = entry;
}

void ReadyQueue::sift_up(size_t slot) {
  Entry moving = heap_[slot];
  while (slot > 0) {
    const size_t parent = (slot - 1) / 2;
    if (!before(moving, heap_[parent])) break;
    set_slot(slot, heap_[parent]);
    slot = parent;
  }
  set_slot(slot, moving);
}

void ReadyQueue::sift_down(size_t slot) {
  Entry moving = heap_[slot];
  const size_t count = heap_.size();
  while (true) {
    size_t child = 2 * slot + 1;
    if (child >= count) break;
    if (child + 1 < count && before(heap_[child + 1], heap_[child])) ++child;
    if (!before(heap_[child], moving)) break;
    set_slot(slot, heap_[child]);
    slot = child;
  }
  set_slot(slot, moving);
}

void ReadyQueue::place(uint32_t id, TimePoint ready_at) {
  if (id >= slot_of_.size()) slot_of_.resize(static_cast<size_t>(id) + 1, kAbsent);
  const Entry entry{ready_at, next_sequence_++, id};
  if (slot_of_[id] == kAbsent) {
    heap_.push_back(entry);
    slot_of_[id] = static_cast<uint32_t>(heap_.size() - 1);
    sift_up(heap_.size() - 1);
    return;
  }
  const size_t slot = slot_of_[id];
  heap_[slot] = entry;
  sift_up(slot);
  sift_down(slot_of_[id]);
}

void ReadyQueue::remove(uint32_t id) {
  if (!contains(id)) return;
  const size_t slot = slot_of_[id];
  slot_of_[id] = kAbsent;
  const Entry last = heap_.back();
  heap_.pop_back();
  if (slot == heap_.size()) return;
  set_slot(slot, last);
  sift_up(slot);
  sift_down(slot_of_[last.id]);
}

size_t ReadyQueue::allocated_bytes() const {
  return heap_.capacity() * sizeof(Entry) + slot_of_.capacity() * sizeof(uint32_t);
}

}  // namespace bloomcrawl
