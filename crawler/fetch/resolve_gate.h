// ResolveGate: bounds the name resolutions in flight across all of a fetcher's workers.
//
// libcurl resolves each name on a thread of its own (the threaded resolver), and a transfer that
// ends mid-resolve (timeout, stop) detaches that thread rather than wait for it (QUICK_EXIT). A sick
// DNS server would otherwise start a thread per new host and keep them all alive: the gate admits a
// transfer whose host may need resolving only while fewer than `max_in_flight` resolves are counted.
//
// Contract:
// - begin(host) says whether a transfer to `host` may start: kNoResolve when its address is known
//   (resolved within `ttl`, so libcurl's shared DNS cache has it) or the host is an IP literal
//   (or empty: a URL that never reaches the resolver);
//   kResolving when it needs a resolve and got a slot; kWait when every slot is taken (the caller
//   keeps the request and asks again later).
// - Each kResolving is ended exactly once: resolved() (the name was resolved: the slot frees and
//   the host is known for `ttl`), failed() (the resolve failed, or never ran: the slot frees), or
//   abandoned() (the transfer timed out or was cancelled mid-resolve: its detached thread may still
//   run, so the slot stays taken for `abandoned_hold`, as long as glibc's resolver may take).
// - `on_slot_freed` runs (outside the lock) when a slot frees while a begin() was refused, so
//   workers waiting on the gate look again.
// - Thread-safe. Known hosts are forgotten when their `ttl` ends, so memory follows the hosts
//   resolved within one ttl.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace bloomcrawl {

class ResolveGate {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Admit { kNoResolve, kResolving, kWait };

  ResolveGate(size_t max_in_flight, Clock::duration ttl, Clock::duration abandoned_hold,
              std::function<void()> on_slot_freed = {});

  Admit begin(std::string_view host, Clock::time_point now);
  void resolved(std::string_view host, Clock::time_point now);
  void failed();
  void abandoned(Clock::time_point now);

  // Slots taken now: resolves running plus abandoned ones still held.
  size_t in_flight(Clock::time_point now);

 private:
  void expire(Clock::time_point now);  // under mutex_
  void free_slot(std::unique_lock<std::mutex>& lock);

  const size_t max_in_flight_;
  const Clock::duration ttl_;
  const Clock::duration abandoned_hold_;
  const std::function<void()> on_slot_freed_;

  std::mutex mutex_;
  size_t running_ = 0;
  std::deque<Clock::time_point> abandoned_until_;  // in order: the hold is constant
  std::unordered_map<std::string, Clock::time_point> known_until_;
  std::deque<std::pair<Clock::time_point, std::string>> known_order_;  // in order: the ttl is constant
  bool refused_ = false;                                               // a begin() was refused since a slot last freed
};

// The gate's key for a URL: its host and port as written ("example.com:8080"), lowercase; what
// libcurl's DNS cache is keyed on. "" when the URL has no "//" authority.
std::string resolve_key(std::string_view url);

// True for "127.0.0.1", "[::1]" and other literal addresses (port allowed), which need no resolve.
bool is_ip_literal(std::string_view host);

}  // namespace bloomcrawl
