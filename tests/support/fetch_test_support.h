// Helpers for tests of the Fetcher: options for loopback servers, and FetchCollector, which gathers
// completions and lets the test wait for them. The wait is bounded (a broken fetcher fails the
// test instead of hanging it); the bound is a safety net, not a timing assertion.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "crawler/fetch/fetcher.h"

namespace bloomcrawl {

// GoogleTest prints outcomes by name.
inline void PrintTo(FetchOutcome outcome, std::ostream* out) { *out << fetch_outcome_name(outcome); }

namespace testing {

// Short timeouts (the suite stays fast; a hostile server ends in kTimeout within seconds) and the
// guard with 127.0.0.0/8 allowed, as the loopback servers need.
inline FetchOptions loopback_fetch_options() {
  FetchOptions options;
  options.threads = 1;
  options.allowed_ranges = {"127.0.0.0/8"};
  options.connect_timeout = std::chrono::milliseconds(2000);
  options.idle_timeout = std::chrono::milliseconds(1000);
  options.total_timeout = std::chrono::milliseconds(2000);
  return options;
}

class FetchCollector {
 public:
  Fetcher::CompletionFn callback() {
    return [this](FetchResult&& result) {
      std::lock_guard lock(mutex_);
      results_.push_back(std::move(result));
      arrived_.notify_all();
    };
  }

  // Waits for `count` results in total and returns them (in completion order).
  std::vector<FetchResult> wait_for(size_t count, std::chrono::seconds bound = std::chrono::seconds(60)) {
    std::unique_lock lock(mutex_);
    if (!arrived_.wait_for(lock, bound, [&] { return results_.size() >= count; })) {
      throw std::runtime_error("FetchCollector: only " + std::to_string(results_.size()) + " of " +
                               std::to_string(count) + " results arrived");
    }
    return results_;
  }

  FetchResult wait_one() { return wait_for(1).front(); }

 private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<FetchResult> results_;
};

}  // namespace testing
}  // namespace bloomcrawl
