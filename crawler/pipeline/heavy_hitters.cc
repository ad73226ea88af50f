#include "crawler/pipeline/heavy_hitters.h"

#include <algorithm>

namespace bloomcrawl {

void HeavyHitters::add(const std::string& key, uint64_t n) {
  if (capacity_ == 0) return;
  auto it = counts_.find(key);
  if (it == counts_.end()) {
    uint64_t inherited = 0;
    if (counts_.size() >= capacity_) {
      // The smallest counter gives its place (and its count) to the new key.
      const auto smallest = by_count_.begin();
      inherited = smallest->first;
      const std::string evicted = *smallest->second;
      by_count_.erase(smallest);
      counts_.erase(evicted);
    }
    it = counts_.emplace(key, inherited).first;
  } else {
    by_count_.erase({it->second, &it->first});
  }
  it->second += n;
  by_count_.insert({it->second, &it->first});
}

std::vector<std::pair<std::string, uint64_t>> HeavyHitters::top(size_t limit) const {
  std::vector<std::pair<std::string, uint64_t>> out(counts_.begin(), counts_.end());
  const size_t kept = std::min(limit, out.size());
  std::partial_sort(out.begin(), out.begin() + std::ptrdiff_t(kept), out.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  out.resize(kept);
  return out;
}

}  // namespace bloomcrawl
