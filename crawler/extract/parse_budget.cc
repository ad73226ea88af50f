#include "crawler/extract/parse_budget.h"

#include <algorithm>

namespace bloomcrawl {

ParseBudget::Lease ParseBudget::take(size_t bytes) {
  bytes = std::min(bytes, capacity_);
  std::unique_lock<std::mutex> lock(mu_);
  freed_.wait(lock, [&] { return in_use_ + bytes <= capacity_; });
  in_use_ += bytes;
  return {this, bytes};
}

ParseBudget::Lease::~Lease() {
  if (budget_ == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(budget_->mu_);
    budget_->in_use_ -= bytes_;
  }
  budget_->freed_.notify_all();
}

}  // namespace bloomcrawl
