#include "crawler/pipeline/robots_share.h"

namespace bloomcrawl {

bool RobotsShare::try_start() {
  size_t current = in_flight_.load(std::memory_order_acquire);
  do {
    if (current >= slots_) return false;
  } while (!in_flight_.compare_exchange_weak(current, current + 1, std::memory_order_acq_rel));
  size_t peak = peak_.load(std::memory_order_relaxed);
  while (current + 1 > peak && !peak_.compare_exchange_weak(peak, current + 1, std::memory_order_relaxed)) {
  }
  return true;
}

}  // namespace bloomcrawl
