// RobotsShare: robots.txt fetches' own bounded share of the crawl's in-flight budget. An
// open-scope crawl meets new hosts faster than their robots.txt files come back; unbounded, those
// fetches would fill the fetcher and the pending count that page dispatch is bounded by, and page
// fetching would stall behind them. With a share, at most slots() robots.txt fetches are out at
// once (the rest wait as their hosts' frontier prerequisites, request_table.h), and pages are dispatched
// against the budget minus only what robots.txt holds or is about to take: max_in_flight -
// slots() pages always flow. Counts robots.txt work separately from page work (in flight: from
// submit to the fetcher's report; pending: from the request's start, queued or waiting, until it
// is processed), so the page bounds can leave it out. Thread-safe, lock-free.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace bloomcrawl {

class RobotsShare {
 public:
  // A quarter of the in-flight budget, at least one: new hosts find their rules within a few
  // round trips while three quarters of the transfers keep fetching pages.
  static constexpr size_t kShareDivisor = 4;
  static size_t slots_for(size_t max_in_flight) { return std::max<size_t>(1, max_in_flight / kShareDivisor); }

  explicit RobotsShare(size_t slots) : slots_(std::max<size_t>(1, slots)) {}

  // Takes a slot for one fetch; false when the share is in use.
  bool try_start();
  // The fetch came back (or was never submitted): its slot is free.
  void finished() { in_flight_.fetch_sub(1, std::memory_order_acq_rel); }
  void add_pending() { pending_.fetch_add(1, std::memory_order_acq_rel); }
  void pending_done() { pending_.fetch_sub(1, std::memory_order_acq_rel); }

  size_t slots() const { return slots_; }
  size_t in_flight() const { return in_flight_.load(std::memory_order_acquire); }
  uint64_t pending() const { return pending_.load(std::memory_order_acquire); }
  size_t peak_in_flight() const { return peak_.load(std::memory_order_relaxed); }
  // What page dispatch leaves free for robots.txt: the slots in use or wanted by `queued` requests.
  size_t reserve(size_t queued) const { return std::min(slots_, in_flight() + queued); }

 private:
  const size_t slots_;
  std::atomic<size_t> in_flight_{0};
  std::atomic<size_t> peak_{0};
  std::atomic<uint64_t> pending_{0};
};

}  // namespace bloomcrawl
