// Striped spin locks for SeenFilter's inserts, keyed by the key's block in the active layer:
// inserts of the same key take the same stripe, which makes "test all layers, then set bits" one
// atomic step per key (exactly one of several concurrent inserters of a key sees it as new), and
// so do all writers of one block, so the bits are set with plain stores instead of a locked
// read-modify-write per word. Per-word atomic fetch_or alone could not give exactly-once, since
// a key's bits span several words. Inserts into different blocks almost never share a stripe,
// and readers take no lock at all.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include "base/prefetch.h"

namespace bloomcrawl::seenfilter {

class StripeLocks {
 public:
  static constexpr uint32_t kStripes = 1024;  // 64 KiB of padded locks; collisions ~ threads/1024

  class Guard {
   public:
    Guard(StripeLocks& locks, uint64_t key) : Guard(locks.stripes_[stripe_of(key)].locked) {}
    ~Guard() { flag_.store(false, std::memory_order_release); }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    friend class StripeLocks;
    explicit Guard(std::atomic<bool>& flag) : flag_(flag) {
      while (flag_.exchange(true, std::memory_order_acquire)) {
        // Critical sections are a few cache-line probes; spin briefly, then let the holder run.
        for (uint32_t spins = 0; flag_.load(std::memory_order_relaxed); ++spins) {
          if (spins >= 64) std::this_thread::yield();
        }
      }
    }
    // Fibonacci hashing: block indexes are dense, so consecutive blocks must spread over stripes.
    static uint64_t stripe_of(uint64_t key) { return (key * 0x9E3779B97F4A7C15ULL) >> (64 - 10); }
    static_assert(kStripes == 1u << 10);
    std::atomic<bool>& flag_;
  };

  // For a caller about to take the stripe of `key`: fetches its line for writing.
  void prefetch(uint64_t key) const { prefetch_for_write(&stripes_[Guard::stripe_of(key)]); }

  // Takes and releases every stripe in turn: every critical section begun before the call has
  // ended when it returns (and its writes are visible). O(stripes); for rare events.
  void sweep() {
    for (uint32_t i = 0; i < kStripes; ++i) Guard held(stripes_[i].locked);
  }

 private:
  struct alignas(64) Stripe {
    std::atomic<bool> locked{false};
  };
  std::unique_ptr<Stripe[]> stripes_ = std::make_unique<Stripe[]>(kStripes);
};

}  // namespace bloomcrawl::seenfilter
