#include "crawler/robots/robots_cache.h"

#include <algorithm>
#include <utility>

namespace bloomcrawl {
namespace {

// An entry's own cost beside its key and rules: the map node, the LRU node and the Entry.
constexpr std::size_t kEntryOverhead = 128;

}  // namespace

const char* robots_give_up_outcome(RobotsGiveUp reason) {
  return reason == RobotsGiveUp::kHostUnreachable ? "host_unreachable" : "robots_unavailable";
}

RobotsCache::RobotsCache(RobotsCacheOptions options)
    : options_(std::move(options)), allow_all_(std::make_shared<const RobotsRules>(RobotsRules::allow_all())) {}

RobotsCache::Entry& RobotsCache::entry_locked(std::string_view host) {
  auto it = entries_.find(host);
  if (it == entries_.end()) {
    it = entries_.emplace(std::string(host), Entry{}).first;
    Entry& fresh = it->second;
    lru_.push_front(it->first);
    fresh.lru = lru_.begin();
    fresh.bytes = kEntryOverhead + it->first.size();
    bytes_ += fresh.bytes;
  } else {
    lru_.splice(lru_.begin(), lru_, it->second.lru);
  }
  return it->second;
}

RobotsLookup RobotsCache::lookup(std::string_view host, Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.lookups;
  Entry& entry = entry_locked(host);
  using State = RobotsLookup::State;
  // A copy kept after a failed re-fetch stays in force until a re-fetch succeeds: the host does
  // not wait for each try (with a long crawl delay it would otherwise fetch only robots.txt).
  const bool kept = entry.rules && entry.failures > 0;
  if (now < entry.deadline) {
    if (kept || (!entry.fetching && entry.rules)) return RobotsLookup{State::kReady, entry.rules};
    if (entry.fetching) return RobotsLookup{State::kFetching, nullptr};
    if (entry.given_up) return RobotsLookup{State::kGivenUp, nullptr, false, *entry.given_up};
  }
  // Unknown, expired, or a fetch that was never reported: this caller fetches.
  if (entry.fetching) ++stats_.fetches_timed_out;
  ++stats_.fetches_handed_out;
  entry.fetching = true;
  entry.deadline = now + options_.fetch_timeout;
  evict_locked();  // a new entry may have pushed the cache over its bound
  if (kept) return RobotsLookup{State::kReady, entry.rules, /*refetch=*/true};
  return RobotsLookup{State::kNeedFetch, nullptr};
}

RobotsNext RobotsCache::on_fetched(std::string_view host, int http_status, std::string_view body, Clock::time_point now,
                                   std::optional<Clock::time_point> retry_after) {
  if (http_status >= 200 && http_status < 300) {
    // Parsed outside the lock: a 500 KiB file takes a while and other hosts must not wait.
    auto rules = std::make_shared<const RobotsRules>(
        RobotsRules::parse(body.substr(0, options_.max_body_bytes), options_.user_agent));
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.parsed;
    store(host, rules, now);
    return RobotsNext{RobotsNext::Kind::kSettled, now + options_.ttl, 0, RobotsGiveUp::kUnavailable, rules};
  }
  // 429 asks us to slow down, so it is an error, not "no robots.txt" (as Google treats it).
  if (http_status >= 300 && http_status < 500 && http_status != 429) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.unavailable;
    store(host, allow_all_, now);
    return RobotsNext{RobotsNext::Kind::kSettled, now + options_.ttl, 0, RobotsGiveUp::kUnavailable, allow_all_};
  }
  return on_failed(host, RobotsFailure::kOutage, now, retry_after);
}

RobotsNext RobotsCache::on_failed(std::string_view host, RobotsFailure failure, Clock::time_point now,
                                  std::optional<Clock::time_point> retry_after) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.unreachable;
  Entry& entry = entry_locked(host);
  if (entry.failures++ == 0) entry.first_failure = now;
  entry.unreachable = failure == RobotsFailure::kHostUnreachable ? entry.unreachable + 1 : 0;
  const Clock::duration wait = std::max(backoff(entry.failures), retry_after.value_or(now) - now);
  if (entry.rules) {
    // As Google does: the copy fetched before stays in force while its re-fetch fails.
    entry.fetching = false;
    entry.deadline = now + std::min(wait, max_wait());
    return RobotsNext{RobotsNext::Kind::kKeptLastGood, entry.deadline, entry.failures, RobotsGiveUp::kUnavailable,
                      entry.rules};
  }
  const Clock::time_point give_up_at = entry.first_failure + options_.give_up;
  const bool give_up = now >= give_up_at || (failure == RobotsFailure::kHostUnreachable &&
                                             entry.unreachable >= options_.unreachable_attempts);
  if (give_up) {
    ++stats_.given_up;
    entry.fetching = false;
    entry.given_up =
        failure == RobotsFailure::kHostUnreachable ? RobotsGiveUp::kHostUnreachable : RobotsGiveUp::kUnavailable;
    entry.deadline = now + max_wait();
    return RobotsNext{RobotsNext::Kind::kGivenUp, entry.deadline, entry.failures, *entry.given_up};
  }
  // The fetch stays handed out to the caller, who tries again at `at`; the last try of an outage
  // is at its give-up time.
  const Clock::time_point at = failure == RobotsFailure::kHostUnreachable
                                   ? now + options_.unreachable_pause
                                   : std::min(now + std::min(wait, max_wait()), give_up_at);
  entry.fetching = true;
  entry.deadline = at + options_.fetch_timeout;
  return RobotsNext{RobotsNext::Kind::kRetry, at, entry.failures};
}

void RobotsCache::store(std::string_view host, std::shared_ptr<const RobotsRules> rules, Clock::time_point now) {
  Entry& entry = entry_locked(host);
  entry.fetching = false;
  entry.given_up.reset();
  entry.failures = 0;
  entry.unreachable = 0;
  entry.deadline = now + options_.ttl;
  set_rules_locked(entry, host, std::move(rules));
  evict_locked();
}

void RobotsCache::set_rules_locked(Entry& entry, std::string_view host, std::shared_ptr<const RobotsRules> rules) {
  bytes_ -= entry.bytes;
  entry.rules = std::move(rules);
  // allow-all is shared by every host that has no robots.txt: it costs them nothing.
  entry.bytes = kEntryOverhead + host.size() + (entry.rules == allow_all_ ? 0 : entry.rules->memory_bytes());
  bytes_ += entry.bytes;
}

RobotsCache::Clock::duration RobotsCache::backoff(uint32_t failures) const {
  // retry_initial after the first failure, doubling with each further one, up to max_wait().
  const Clock::duration cap = max_wait();
  Clock::duration delay = options_.retry_initial;
  for (uint32_t i = 1; i < failures && delay < cap && delay > Clock::duration::zero(); ++i) delay *= 2;
  return std::min(delay, cap);
}

RobotsCache::Clock::duration RobotsCache::max_wait() const {
  // A retry_max below retry_initial does not shorten the first wait: a zero one would spin.
  return std::max<Clock::duration>(options_.retry_initial, options_.retry_max);
}

void RobotsCache::erase_locked(std::string_view host) {
  auto it = entries_.find(host);
  bytes_ -= it->second.bytes;
  lru_.erase(it->second.lru);
  entries_.erase(it);
}

void RobotsCache::evict_locked() {
  // Least recently looked up first. An entry handed out or given up is state the crawl relies
  // on (a host waits on it, or its URLs are recorded from it): it moves to the front instead.
  for (std::size_t visited = 0; bytes_ > options_.max_bytes && visited < entries_.size(); ++visited) {
    const std::string_view key = lru_.back();
    Entry& entry = entries_.find(key)->second;
    if (entry.fetching || entry.given_up) {
      lru_.splice(lru_.begin(), lru_, entry.lru);
      continue;
    }
    ++stats_.evicted;
    erase_locked(key);
  }
}

std::size_t RobotsCache::erase_expired(Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t erased = 0;
  for (auto it = entries_.begin(); it != entries_.end();) {
    const Entry& entry = it->second;
    if (entry.fetching || now < entry.deadline + options_.keep_expired) {
      ++it;
      continue;
    }
    bytes_ -= entry.bytes;
    lru_.erase(entry.lru);
    it = entries_.erase(it);
    ++erased;
  }
  return erased;
}

RobotsCacheStats RobotsCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  RobotsCacheStats stats = stats_;
  stats.hosts = entries_.size();
  stats.bytes = bytes_;
  return stats;
}

}  // namespace bloomcrawl
