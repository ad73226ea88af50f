// Striped spin locks keyed by a key's hash: inserts of the same key always take the same
// stripe, which makes "test all layers, then set bits" one atomic step per key (exactly one of
// several concurrent inserters of a key sees it as new). Per-word atomic fetch_or alone cannot
// give that, since a key's bits span several words. Inserts of different keys almost never share
// a stripe, and readers take no lock at all.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

namespace bloomcrawl::seenfilter {

class StripeLocks {
 public:
  static constexpr uint32_t kStripes = 1024;  // 64 KiB of padded locks; collisions ~ threads/1024

  class Guard {
   public:
    Guard(StripeLocks& locks, uint64_t hash) : flag_(locks.stripes_[hash % kStripes].locked) {
      while (flag_.exchange(true, std::memory_order_acquire)) {
        // Critical sections are a few cache-line probes; spin briefly, then let the holder run.
        for (uint32_t spins = 0; flag_.load(std::memory_order_relaxed); ++spins) {
          if (spins >= 64) std::this_thread::yield();
        }
      }
    }
    ~Guard() { flag_.store(false, std::memory_order_release); }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    std::atomic<bool>& flag_;
  };

 private:
  struct alignas(64) Stripe {
    std::atomic<bool> locked{false};
  };
  std::unique_ptr<Stripe[]> stripes_ = std::make_unique<Stripe[]>(kStripes);
};

}  // namespace bloomcrawl::seenfilter
