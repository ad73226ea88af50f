// HostIndex: host key -> dense host id, an open-addressing (linear probing) table of
// (id, 32-bit hash) slots: 8 bytes per slot instead of a ~60-byte node per host in a
// std::unordered_map. The keys themselves stay where the caller keeps them (the UrlArena); lookups
// take a `key_of(id)` callable to compare candidates whose hash matches. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace bloomcrawl {

class HostIndex {
 public:
  static constexpr uint32_t kAbsent = UINT32_MAX;

  // The id stored for `key`, or kAbsent.
  template <typename KeyOf>
  uint32_t find(std::string_view key, KeyOf&& key_of) const {
    if (slots_.empty()) return kAbsent;
    const uint32_t hash = hash_of(key);
    for (size_t i = hash & mask(); slots_[i].id != kAbsent; i = (i + 1) & mask()) {
      if (slots_[i].hash == hash && key_of(slots_[i].id) == key) return slots_[i].id;
    }
    return kAbsent;
  }

  // Adds `id` for `key`, which must not be present yet.
  void insert(std::string_view key, uint32_t id);

  size_t size() const { return size_; }
  size_t allocated_bytes() const { return slots_.capacity() * sizeof(Slot); }

 private:
  struct Slot {
    uint32_t id = kAbsent;
    uint32_t hash = 0;
  };
  static uint32_t hash_of(std::string_view key) {
    const size_t full = std::hash<std::string_view>{}(key);
    return static_cast<uint32_t>(full ^ (full >> 32));
  }
  size_t mask() const { return slots_.size() - 1; }
  void place(Slot slot);
  void grow();

  std::vector<Slot> slots_;  // power-of-two size, at most 3/4 full
  size_t size_ = 0;
};

}  // namespace bloomcrawl
