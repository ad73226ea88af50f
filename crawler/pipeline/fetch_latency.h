// FetchLatency: a histogram of fetch durations (responses only, as CrawlStats::fetch_ms_total), for
// the Prometheus metric bloomcrawl_fetch_duration_seconds (docs/metrics.md). Fixed buckets and
// relaxed atomics: a fetch costs two uncontended increments, a reader sums no lock. Not saved in
// checkpoints: like every Prometheus histogram it starts again with the process.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

namespace bloomcrawl {

class FetchLatency {
 public:
  // Upper bounds in seconds; a last bucket (+Inf) takes the rest.
  static constexpr std::array<double, 12> kBounds = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};

  struct Snapshot {
    std::vector<uint64_t> cumulative;  // per bound, then +Inf (= count)
    uint64_t count = 0;
    double sum_seconds = 0;
  };

  void observe_ms(double ms);
  Snapshot snapshot() const;

 private:
  std::array<std::atomic<uint64_t>, kBounds.size() + 1> buckets_{};
  std::atomic<uint64_t> sum_us_{0};
};

}  // namespace bloomcrawl
