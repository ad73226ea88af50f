#include "frontier/frontier_host_index.h"

#include <utility>

namespace bloomcrawl {

void HostIndex::place(Slot slot) {
  size_t i = slot.hash & mask();
  while (slots_[i].id != kAbsent) i = (i + 1) & mask();
  slots_[i] = slot;
}

void HostIndex::grow() {
  std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(slots_.empty() ? 16 : slots_.size() * 2));
  for (const Slot& slot : old) {
    if (slot.id != kAbsent) place(slot);
  }
}

void HostIndex::insert(std::string_view key, uint32_t id) {
  if ((size_ + 1) * 4 > slots_.size() * 3) grow();
  place(Slot{id, hash_of(key)});
  ++size_;
}

}  // namespace bloomcrawl
