// The bit array of one filter layer: `blocks` cache-line-aligned 64-byte blocks, zeroed.
//
// Words are accessed through std::atomic_ref so that lock-free readers, inserters of other keys
// and snapshot copies may touch the same words concurrently. Once a layer is sealed (full) it is
// never written again and may be shared read-only (snapshots, checkpoints); the checksum of its
// checkpoint file is then cached here so later checkpoints need not re-hash it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

#include "base/prefetch.h"
#include "seenfilter/blocked_bloom_math.h"
#include "seenfilter/key_hash.h"

namespace bloomcrawl::seenfilter {

class LayerBits {
 public:
  // Layers up to this size are faulted in when created (layer_bits.cc says why): 64 MiB took
  // 7-8 ms here (MADV_POPULATE_WRITE with huge pages), once per layer.
  static constexpr uint64_t kPopulateBytes = uint64_t{64} << 20;

  // Throws std::bad_alloc when the memory cannot be mapped.
  explicit LayerBits(const LayerGeometry& geometry);
  ~LayerBits();
  LayerBits(const LayerBits&) = delete;
  LayerBits& operator=(const LayerBits&) = delete;

  const LayerGeometry& geometry() const { return geometry_; }
  uint64_t word_count() const { return geometry_.blocks * kBlockWords; }
  uint64_t* words() { return words_; }
  const uint64_t* words() const { return words_; }

  // Branch-free: each bit is tested straight from the (L1-resident after the first) block words;
  // per-word or per-bit branches mispredict several times per probe, and building a mask array
  // first costs store-to-load round trips. Misses test all k bits too, which is cheaper than
  // the mispredicted early exit.
  bool test(const BlockProbe& probe) const {
    const uint64_t* block = words_ + probe.block * kBlockWords;
    uint64_t all = 1;
    for (uint32_t i = 0; i < probe.probes; ++i) {
      const uint32_t bit = probe.bit(i);
      all &= load(block[bit >> 6]) >> (bit & 63);
    }
    return (all & 1) != 0;
  }

  // The caller holds the block's stripe (stripe_locks.h): no other thread writes these words, so
  // each bit is set with a plain load and store instead of a locked fetch_or (a full barrier on
  // x86). Lock-free readers still see every word change atomically. Bit by bit, straight into the
  // block: gathering per-word masks in a stack array first made every key pay for stores and
  // loads at unpredictable indexes (it cost 40 ns of a 90 ns insert on a cached filter).
  void set_exclusive(const BlockProbe& probe) {
    uint64_t* block = words_ + probe.block * kBlockWords;
    for (uint32_t i = 0; i < probe.probes; ++i) {
      const uint32_t bit = probe.bit(i);
      std::atomic_ref<uint64_t> word(block[bit >> 6]);
      word.store(word.load(std::memory_order_relaxed) | (uint64_t{1} << (bit & 63)), std::memory_order_relaxed);
    }
  }

  void prefetch(uint64_t block) const { prefetch_for_read(words_ + block * kBlockWords); }

  uint64_t popcount() const;
  // A private copy of the bits as they are now (racing writers may or may not be included).
  std::shared_ptr<LayerBits> copy() const;

  // Checksum cache for the sealed state, keyed by the key count written with it.
  std::optional<uint64_t> cached_checksum(uint64_t keys) const;
  void cache_checksum(uint64_t keys, uint64_t checksum) const;

  static uint64_t load(const uint64_t& word) {
    return std::atomic_ref<const uint64_t>(word).load(std::memory_order_relaxed);
  }

 private:
  LayerGeometry geometry_;
  uint64_t* words_ = nullptr;
  mutable std::mutex checksum_mu_;
  mutable std::optional<std::pair<uint64_t, uint64_t>> checksum_;  // (keys, checksum)
};

}  // namespace bloomcrawl::seenfilter
