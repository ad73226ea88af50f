// ParseBudget: how many bytes of HTML a process's parse threads parse at once. A parse holds
// Gumbo's tree, ~16-25 bytes per parsed byte (docs/links.md, "Parse memory"), so a cap on each
// page (LinkExtractOptions::max_bytes) bounds one parse, and this budget bounds them all together,
// whatever the number of parse threads. A parse takes its input's size from the budget (all of
// it, if it is larger) and waits while that is not free; small pages fit beside each other, and
// the crawl's budget (crawl_settings.cc) holds one capped page. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace bloomcrawl {

class ParseBudget {
 public:
  explicit ParseBudget(size_t bytes) : capacity_(bytes) {}
  ParseBudget(const ParseBudget&) = delete;
  ParseBudget& operator=(const ParseBudget&) = delete;

  // Bytes taken from the budget until it goes.
  class Lease {
   public:
    Lease(ParseBudget* budget, size_t bytes) : budget_(budget), bytes_(bytes) {}
    ~Lease();
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;

   private:
    ParseBudget* budget_;  // null: nothing taken
    size_t bytes_;
  };

  // Waits until min(bytes, capacity) bytes are free and takes them.
  [[nodiscard]] Lease take(size_t bytes);
  size_t capacity() const { return capacity_; }

 private:
  const size_t capacity_;
  std::mutex mu_;
  std::condition_variable freed_;
  size_t in_use_ = 0;  // under mu_
};

}  // namespace bloomcrawl
