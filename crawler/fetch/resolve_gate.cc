#include "crawler/fetch/resolve_gate.h"

#include <arpa/inet.h>

#include <cctype>

namespace bloomcrawl {

std::string resolve_key(std::string_view url) {
  const size_t start = url.find("//");
  if (start == std::string_view::npos) return "";
  std::string_view authority = url.substr(start + 2);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  std::string key(authority);
  for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return key;
}

bool is_ip_literal(std::string_view host) {
  if (host.starts_with('[')) return true;  // the URL syntax brackets IPv6 literals and nothing else
  const std::string name(host.substr(0, host.find(':')));
  in_addr address{};
  return inet_pton(AF_INET, name.c_str(), &address) == 1;
}

ResolveGate::ResolveGate(size_t max_in_flight, Clock::duration ttl, Clock::duration abandoned_hold,
                         std::function<void()> on_slot_freed)
    : max_in_flight_(max_in_flight),
      ttl_(ttl),
      abandoned_hold_(abandoned_hold),
      on_slot_freed_(std::move(on_slot_freed)) {}

ResolveGate::Admit ResolveGate::begin(std::string_view host, Clock::time_point now) {
  if (host.empty() || is_ip_literal(host)) return Admit::kNoResolve;
  std::lock_guard lock(mutex_);
  expire(now);
  if (known_until_.contains(std::string(host))) return Admit::kNoResolve;
  if (running_ + abandoned_until_.size() >= max_in_flight_) {
    refused_ = true;
    return Admit::kWait;
  }
  ++running_;
  return Admit::kResolving;
}

void ResolveGate::resolved(std::string_view host, Clock::time_point now) {
  std::unique_lock lock(mutex_);
  const Clock::time_point until = now + ttl_;
  auto [it, inserted] = known_until_.insert_or_assign(std::string(host), until);
  known_order_.emplace_back(until, it->first);
  free_slot(lock);
}

void ResolveGate::failed() {
  std::unique_lock lock(mutex_);
  free_slot(lock);
}

void ResolveGate::abandoned(Clock::time_point now) {
  std::lock_guard lock(mutex_);
  --running_;
  abandoned_until_.push_back(now + abandoned_hold_);
}

size_t ResolveGate::in_flight(Clock::time_point now) {
  std::lock_guard lock(mutex_);
  expire(now);
  return running_ + abandoned_until_.size();
}

void ResolveGate::expire(Clock::time_point now) {
  while (!abandoned_until_.empty() && abandoned_until_.front() <= now) abandoned_until_.pop_front();
  while (!known_order_.empty() && known_order_.front().first <= now) {
    auto it = known_until_.find(known_order_.front().second);
    // A host resolved again since has a later entry further back; only its last one forgets it.
    if (it != known_until_.end() && it->second <= now) known_until_.erase(it);
    known_order_.pop_front();
  }
}

void ResolveGate::free_slot(std::unique_lock<std::mutex>& lock) {
  --running_;
  const bool wake = refused_;
  refused_ = false;
  lock.unlock();
  if (wake && on_slot_freed_) on_slot_freed_();
}

}  // namespace bloomcrawl
