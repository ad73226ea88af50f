#include "crawler/pipeline/grouped_hosts.h"

#include <functional>

namespace bloomcrawl {

GroupedHosts::GroupedHosts() : slots_(std::make_unique<std::atomic<uint64_t>[]>(kSlots)) {}

bool GroupedHosts::first_time(std::string_view host) {
  // The low bits pick the slot and the whole hash is the tag; 0 marks an empty slot.
  const uint64_t hash = uint64_t(std::hash<std::string_view>{}(host));
  const uint64_t tag = hash | 1;
  return slots_[hash & (kSlots - 1)].exchange(tag, std::memory_order_relaxed) != tag;
}

}  // namespace bloomcrawl
