#include "crawler/content/near_duplicate_index.h"

#include "crawler/content/simhash.h"

namespace bloomcrawl {
namespace {

uint16_t block(uint64_t fingerprint, size_t table) { return static_cast<uint16_t>(fingerprint >> (16 * table)); }

}  // namespace

std::optional<std::string> NearDuplicateIndex::find_or_add(uint64_t fingerprint, std::string_view url) {
  std::lock_guard lock(mu_);
  for (size_t t = 0; t < tables_.size(); ++t) {
    const auto it = tables_[t].find(block(fingerprint, t));
    if (it == tables_[t].end()) continue;
    for (const uint32_t i : it->second) {
      if (hamming_distance(pages_[i].fingerprint, fingerprint) <= kNearDuplicateBits) return pages_[i].url;
    }
  }
  if (pages_.size() >= kMaxPages) return std::nullopt;
  const auto index = static_cast<uint32_t>(pages_.size());
  pages_.push_back({fingerprint, std::string(url)});
  for (size_t t = 0; t < tables_.size(); ++t) tables_[t][block(fingerprint, t)].push_back(index);
  return std::nullopt;
}

size_t NearDuplicateIndex::size() const {
  std::lock_guard lock(mu_);
  return pages_.size();
}

}  // namespace bloomcrawl
