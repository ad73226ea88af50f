#include "crawler/pipeline/request_table.h"

#include <algorithm>

namespace bloomcrawl {

void RequestTable::add(uint64_t id, CrawlRequest request) {
  std::lock_guard<std::mutex> lock(mu_);
  submitted_.emplace(id, std::move(request));
}

std::optional<CrawlRequest> RequestTable::take(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = submitted_.find(id);
  if (it == submitted_.end()) return std::nullopt;
  CrawlRequest request = std::move(it->second);
  submitted_.erase(it);
  return request;
}

void RequestTable::wait(RobotsRequest request, Clock::time_point due) {
  std::lock_guard<std::mutex> lock(mu_);
  waiting_.emplace_back(due, std::move(request));
}

std::vector<RobotsRequest> RequestTable::take_due(Clock::time_point now) {
  std::vector<RobotsRequest> due;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::partition(waiting_.begin(), waiting_.end(), [&](const auto& r) { return r.first > now; });
  for (auto d = it; d != waiting_.end(); ++d) due.push_back(std::move(d->second));
  waiting_.erase(it, waiting_.end());
  return due;
}

void RequestTable::queue(uint64_t token, RobotsRequest request) {
  std::lock_guard<std::mutex> lock(mu_);
  queued_.emplace(token, std::move(request));
}

std::optional<RobotsRequest> RequestTable::take_queued(uint64_t token) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = queued_.find(token);
  if (it == queued_.end()) return std::nullopt;
  RobotsRequest request = std::move(it->second);
  queued_.erase(it);
  return request;
}

size_t RequestTable::queued() {
  std::lock_guard<std::mutex> lock(mu_);
  return queued_.size();
}

size_t RequestTable::drop_waiting() {
  std::lock_guard<std::mutex> lock(mu_);
  const size_t dropped = waiting_.size() + queued_.size();
  waiting_.clear();
  queued_.clear();
  return dropped;
}

std::optional<Clock::time_point> RequestTable::next_due() {
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<Clock::time_point> next;
  for (const auto& [due, request] : waiting_) next = next ? std::min(*next, due) : due;
  return next;
}

RobotsWaits RequestTable::robots_waits() {
  std::lock_guard<std::mutex> lock(mu_);
  RobotsWaits waits;
  for (const auto& [due, request] : waiting_) {
    if (request.attempt == 0) continue;  // a redirect hop of a first try
    ++waits.hosts;
    waits.next = waits.next ? std::min(*waits.next, due) : due;
  }
  return waits;
}

}  // namespace bloomcrawl
