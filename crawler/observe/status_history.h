// StatusHistory: the last hour of a crawl's progress, one sample a second (pages fetched, URLs
// queued, requests in flight), for the status page's charts. Bounded: the oldest sample goes when
// a new one comes past kSamples. Thread-safe: the sampler adds, HTTP handlers read.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>

#include <nlohmann/json.hpp>

namespace bloomcrawl {

class StatusHistory {
 public:
  static constexpr size_t kSamples = 3600;

  struct Sample {
    double unix_seconds = 0;
    uint64_t pages = 0;
    uint64_t queued = 0;
    uint64_t in_flight = 0;
  };

  void add(const Sample& sample);
  // Pages a second over the samples of the last `window_seconds` (0 with fewer than two).
  double pages_per_second(double window_seconds) const;
  // {"time": [...], "pages": [...], "pages_per_second": [...], "queued": [...], "in_flight": [...]},
  // oldest first; pages_per_second[i] is the rate since the sample before (0 for the first).
  nlohmann::json to_json() const;

 private:
  mutable std::mutex mu_;
  std::deque<Sample> samples_;
};

}  // namespace bloomcrawl
