// StickyFailure: a store's first failure, kept for good (docs/frontier.md, "When the store fails").
// After a failed write a store calls its database for no write again, so every later call reports
// this first failure; any thread may ask for it. Shared by the frontier's and the records' stores.
#pragma once

#include <atomic>
#include <filesystem>
#include <mutex>
#include <string>
#include <utility>

#include "base/data_error.h"

namespace bloomcrawl {

class StickyFailure {
 public:
  explicit StickyFailure(std::string store_name) : store_name_(std::move(store_name)) {}

  // Keeps "STORE NAME: problem" unless a failure is kept already.
  void record(const std::string& problem) {
    {
      std::lock_guard lock(mu_);
      if (failure_.empty()) failure_ = store_name_ + ": " + problem;
    }
    failed_.store(true, std::memory_order_release);
  }
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  // The kept failure as CheckpointError "DIR: STORE NAME: problem" tells it; empty while none.
  std::string message(const std::filesystem::path& directory) const {
    std::lock_guard lock(mu_);
    return failure_.empty() ? failure_ : CheckpointError(directory.string(), failure_).what();
  }
  [[noreturn]] void raise(const std::filesystem::path& directory) const {
    std::lock_guard lock(mu_);
    throw CheckpointError(directory.string(), failure_);
  }

 private:
  const std::string store_name_;
  std::atomic<bool> failed_{false};
  mutable std::mutex mu_;
  std::string failure_;
};

}  // namespace bloomcrawl
