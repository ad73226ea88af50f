#include "crawler/pipeline/fetch_latency.h"

#include <algorithm>

namespace bloomcrawl {

void FetchLatency::observe_ms(double ms) {
  const double seconds = std::max(0.0, ms) / 1000.0;
  const auto bucket = size_t(std::lower_bound(kBounds.begin(), kBounds.end(), seconds) - kBounds.begin());
  buckets_[bucket].fetch_add(1, std::memory_order_relaxed);
  sum_us_.fetch_add(uint64_t(std::max(0.0, ms) * 1000.0), std::memory_order_relaxed);
}

FetchLatency::Snapshot FetchLatency::snapshot() const {
  Snapshot s;
  // Buckets are read one by one while fetches go on: the cumulative counts stay monotone, and the
  // count is their total, so the exposition is consistent even if not one instant's.
  for (const auto& bucket : buckets_) {
    s.count += bucket.load(std::memory_order_relaxed);
    s.cumulative.push_back(s.count);
  }
  s.sum_seconds = double(sum_us_.load(std::memory_order_relaxed)) / 1e6;
  return s;
}

}  // namespace bloomcrawl
