// RequestTable: the crawl's requests between the scheduler and the parse workers. Each request
// submitted to the fetcher is kept by id until its result comes back (take()); a robots.txt
// request that must wait (a retry after a pause) is kept with its due time until the scheduler
// starts it (take_due()); a robots.txt request due now is queued under a token, which the
// frontier holds as one of the host's prerequisites, until its politeness key and its share of
// the in-flight budget (robots_share.h) let it go (take_queued()). Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "crawler/pipeline/crawl_request.h"

namespace bloomcrawl {

// The robots.txt fetches waiting to be tried again after a failure (their hosts wait with them).
struct RobotsWaits {
  size_t hosts = 0;
  std::optional<Clock::time_point> next;  // the earliest try
};

class RequestTable {
 public:
  void add(uint64_t id, CrawlRequest request);
  // The request submitted as `id`, removed; nullopt if there is none.
  std::optional<CrawlRequest> take(uint64_t id);

  void wait(RobotsRequest request, Clock::time_point due);
  // The waiting requests due by `now`, removed.
  std::vector<RobotsRequest> take_due(Clock::time_point now);
  void queue(uint64_t token, RobotsRequest request);
  // The request queued under `token`, removed; nullopt if there is none (dropped at a stop).
  std::optional<RobotsRequest> take_queued(uint64_t token);
  size_t queued();
  // Every waiting and queued request, removed (the crawl is stopping); returns how many there were.
  size_t drop_waiting();
  // When the earliest waiting request is due.
  std::optional<Clock::time_point> next_due();
  RobotsWaits robots_waits();

 private:
  std::mutex mu_;
  std::unordered_map<uint64_t, CrawlRequest> submitted_;
  std::vector<std::pair<Clock::time_point, RobotsRequest>> waiting_;
  std::unordered_map<uint64_t, RobotsRequest> queued_;
};

}  // namespace bloomcrawl
