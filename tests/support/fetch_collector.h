// FetchCollector: gathers Fetcher completions for tests and lets the test wait for them.
// The wait is bounded (a broken fetcher fails the test instead of hanging it); the bound is a
// safety net, not a timing assertion.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "crawler/fetcher.h"

namespace bloomcrawl {

// GoogleTest prints outcomes by name.
inline void PrintTo(FetchOutcome outcome, std::ostream* out) { *out << fetch_outcome_name(outcome); }

namespace testing {

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
  std::vector<FetchResult> wait_for(size_t count,
                                    std::chrono::seconds bound = std::chrono::seconds(60)) {
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
