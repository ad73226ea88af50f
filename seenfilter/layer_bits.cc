#include "seenfilter/layer_bits.h"

#include <sys/mman.h>

#include <new>

namespace bloomcrawl::seenfilter {

// mmap gives page-aligned (so cache-line-aligned) zero pages that cost nothing until touched,
// so a large new layer does not stall the inserter that triggers its creation.
LayerBits::LayerBits(const LayerGeometry& geometry) : geometry_(geometry) {
  void* p = ::mmap(nullptr, geometry_.bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  // Every probe lands on a random block: with 4 KiB pages a layer beyond a few MB misses the TLB
  // on almost every lookup (a page walk costs as much as the block's own cache miss). Huge pages
  // make each TLB entry cover 2 MiB. Advisory: without transparent huge pages nothing changes.
  ::madvise(p, geometry_.bytes(), MADV_HUGEPAGE);
  words_ = static_cast<uint64_t*>(p);
}

LayerBits::~LayerBits() { ::munmap(words_, geometry_.bytes()); }

uint64_t LayerBits::popcount() const {
  uint64_t count = 0;
  const uint64_t n = word_count();
  for (uint64_t i = 0; i < n; ++i) count += static_cast<uint64_t>(__builtin_popcountll(load(words_[i])));
  return count;
}

std::shared_ptr<LayerBits> LayerBits::copy() const {
  auto out = std::make_shared<LayerBits>(geometry_);
  const uint64_t n = word_count();
  for (uint64_t i = 0; i < n; ++i) {
    // Zero words are skipped so untouched pages of the copy stay unmapped.
    if (const uint64_t w = load(words_[i])) out->words_[i] = w;
  }
  return out;
}

std::optional<uint64_t> LayerBits::cached_checksum(uint64_t keys) const {
  std::lock_guard lock(checksum_mu_);
  if (checksum_ && checksum_->first == keys) return checksum_->second;
  return std::nullopt;
}

void LayerBits::cache_checksum(uint64_t keys, uint64_t checksum) const {
  std::lock_guard lock(checksum_mu_);
  checksum_ = std::make_pair(keys, checksum);
}

}  // namespace bloomcrawl::seenfilter
