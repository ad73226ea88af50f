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
  // An insert reads a block before it sets bits, and the first read of a page maps the kernel's
  // shared zero page; the first write then swaps in a page of the process's own and must flush
  // the old mapping from the TLB of every CPU running the process: an inter-processor interrupt,
  // an exit per CPU on a VM. Each 4 KiB page of a layer paid that once, as soon as a second
  // thread (a compact filter's job, a crawler's fetcher) runs: 24 ns per insert of the compact
  // filter at 10M keys (2% of its profile, bench/results/compact-filter.md). Faulting the pages
  // in writable at once skips the zero page. Layers above kPopulateBytes stay lazy: they are
  // mostly huge pages (one flush per 2 MiB), and zeroing them at once would stall the inserter
  // that seals the layer before them. Advisory too: kernels before 5.14 refuse it.
  if (geometry_.bytes() <= kPopulateBytes) ::madvise(p, geometry_.bytes(), MADV_POPULATE_WRITE);
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
    // Zero words are skipped so untouched pages of a large copy (above kPopulateBytes) stay unmapped.
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
