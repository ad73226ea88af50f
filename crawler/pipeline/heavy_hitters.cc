#include "crawler/pipeline/heavy_hitters.h"

#include <algorithm>

namespace bloomcrawl {

void HeavyHitters::add(const std::string& key, uint64_t n) {
  if (capacity_ == 0) return;
  auto it = index_.find(key);
  if (it != index_.end()) {
    Slot& slot = slots_[it->second];
    slot.count += n;
    sift_down(slot.heap_pos);
    return;
  }
  if (index_.size() < capacity_) {
    const auto id = static_cast<uint32_t>(slots_.size());
    it = index_.emplace(key, id).first;
    slots_.push_back({n, static_cast<uint32_t>(heap_.size()), &it->first});
    heap_.push_back(id);
    sift_up(slots_[id].heap_pos);
    return;
  }
  // The smallest counter gives its place (and its count) to the new key; its hash node is
  // re-keyed rather than freed and allocated again.
  const uint32_t id = heap_.front();
  auto node = index_.extract(*slots_[id].key);
  node.key() = key;
  it = index_.insert(std::move(node)).position;
  slots_[id].key = &it->first;
  slots_[id].count += n;
  sift_down(0);
}

void HeavyHitters::place(uint32_t pos, uint32_t slot) {
  heap_[pos] = slot;
  slots_[slot].heap_pos = pos;
}

void HeavyHitters::sift_down(uint32_t pos) {
  const uint32_t slot = heap_[pos];
  const auto size = static_cast<uint32_t>(heap_.size());
  for (;;) {
    uint32_t child = 2 * pos + 1;
    if (child >= size) break;
    if (child + 1 < size && before(heap_[child + 1], heap_[child])) ++child;
    if (!before(heap_[child], slot)) break;
    place(pos, heap_[child]);
    pos = child;
  }
  place(pos, slot);
}

void HeavyHitters::sift_up(uint32_t pos) {
  const uint32_t slot = heap_[pos];
  while (pos > 0) {
    const uint32_t parent = (pos - 1) / 2;
    if (!before(slot, heap_[parent])) break;
    place(pos, heap_[parent]);
    pos = parent;
  }
  place(pos, slot);
}

std::vector<std::pair<std::string, uint64_t>> HeavyHitters::top(size_t limit) const {
  std::vector<std::pair<std::string, uint64_t>> out;
  out.reserve(slots_.size());
  for (const Slot& slot : slots_) out.emplace_back(*slot.key, slot.count);
  const size_t kept = std::min(limit, out.size());
  std::partial_sort(out.begin(), out.begin() + std::ptrdiff_t(kept), out.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  out.resize(kept);
  return out;
}

}  // namespace bloomcrawl
