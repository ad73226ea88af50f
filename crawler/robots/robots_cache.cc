#include "crawler/robots/robots_cache.h"

#include <algorithm>
#include <utility>

namespace bloomcrawl {

RobotsCache::RobotsCache(RobotsCacheOptions options)
    : options_(std::move(options)),
      allow_all_(std::make_shared<const RobotsRules>(RobotsRules::allow_all())),
      disallow_all_(std::make_shared<const RobotsRules>(RobotsRules::disallow_all())) {}

RobotsLookup RobotsCache::lookup(std::string_view host, Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.lookups;
  auto it = entries_.find(host);
  if (it == entries_.end()) it = entries_.emplace(std::string(host), Entry{}).first;
  Entry& entry = it->second;
  if (entry.rules && !entry.fetching && now < entry.deadline) {
    return RobotsLookup{RobotsLookup::State::kReady, entry.rules};
  }
  if (entry.fetching && now < entry.deadline) return RobotsLookup{RobotsLookup::State::kFetching, nullptr};
  // Unknown, expired, or a fetch that was never reported: this caller fetches.
  if (entry.fetching) ++stats_.fetches_timed_out;
  ++stats_.fetches_handed_out;
  entry.fetching = true;
  entry.deadline = now + options_.fetch_timeout;
  return RobotsLookup{RobotsLookup::State::kNeedFetch, nullptr};
}

void RobotsCache::on_fetched(std::string_view host, int http_status, std::string_view body, Clock::time_point now) {
  if (http_status >= 200 && http_status < 300) {
    // Parsed outside the lock: a 500 KiB file takes a while and other hosts must not wait.
    auto rules = std::make_shared<const RobotsRules>(
        RobotsRules::parse(body.substr(0, options_.max_body_bytes), options_.user_agent));
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.parsed;
    store(host, std::move(rules), false, now);
    return;
  }
  // 429 asks us to slow down, so it is an error, not "no robots.txt" (as Google treats it).
  if (http_status >= 300 && http_status < 500 && http_status != 429) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.unavailable;
    store(host, allow_all_, false, now);
    return;
  }
  on_unreachable(host, now);
}

void RobotsCache::on_unreachable(std::string_view host, Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.unreachable;
  store(host, disallow_all_, true, now);
}

void RobotsCache::store(std::string_view host, std::shared_ptr<const RobotsRules> rules, bool failure,
                        Clock::time_point now) {
  auto it = entries_.find(host);
  if (it == entries_.end()) it = entries_.emplace(std::string(host), Entry{}).first;
  Entry& entry = it->second;
  entry.fetching = false;
  entry.rules = std::move(rules);
  if (!failure) {
    entry.consecutive_failures = 0;
    entry.deadline = now + options_.ttl;
    return;
  }
  // Exponential backoff: retry_initial, 2x, 4x, ... capped at retry_max.
  const int doublings = std::min(entry.consecutive_failures, 30);
  ++entry.consecutive_failures;
  auto delay = options_.retry_initial;
  for (int i = 0; i < doublings && delay < options_.retry_max; ++i) delay *= 2;
  entry.deadline = now + std::min(delay, options_.retry_max);
}

std::size_t RobotsCache::erase_expired(Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::erase_if(entries_, [&](const auto& item) {
    const Entry& entry = item.second;
    return !entry.fetching && now >= entry.deadline;
  });
}

RobotsCacheStats RobotsCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  RobotsCacheStats stats = stats_;
  stats.hosts = entries_.size();
  return stats;
}

}  // namespace bloomcrawl
