#include "crawler/cluster/cluster_outbox.h"

#include <utility>

namespace bloomcrawl {

ClusterOutbox::ClusterOutbox(ClusterLink& link, size_t max_urls, std::chrono::milliseconds max_age,
                             std::function<void(const std::string&)> on_failure)
    : link_(link), max_urls_(max_urls), max_age_(max_age), on_failure_(std::move(on_failure)) {
  thread_ = std::thread([this] { run(); });
}

ClusterOutbox::~ClusterOutbox() { stop(); }

uint64_t ClusterOutbox::add(uint32_t node, RoutedBatch batch) {
  std::lock_guard lock(mu_);
  if (failed_) {
    // Never sent, but recorded as the thread's last ticket like any other: the work it came from
    // waits on it (after_send(), wait_sent()) and so stays undone for a resume.
    const uint64_t ticket = next_ticket_++;
    last_ticket_[std::this_thread::get_id()] = ticket;
    return ticket;
  }
  const bool first = queued_.empty();  // the thread sleeps with no deadline until then
  if (first) oldest_ = std::chrono::steady_clock::now();
  const size_t urls = queued_urls_[node] += batch.urls.size();
  queued_[node].push_back(std::move(batch));
  const uint64_t ticket = next_ticket_++;
  last_ticket_[std::this_thread::get_id()] = ticket;
  if (first || urls >= max_urls_) changed_.notify_all();
  return ticket;
}

uint64_t ClusterOutbox::last_ticket() const {
  std::lock_guard lock(mu_);
  const auto it = last_ticket_.find(std::this_thread::get_id());
  return it == last_ticket_.end() ? 0 : it->second;
}

bool ClusterOutbox::sent(uint64_t ticket) const {
  std::lock_guard lock(mu_);
  return ticket <= sent_upto_;
}

bool ClusterOutbox::after_send(uint64_t ticket, std::function<void()> done) {
  std::lock_guard lock(mu_);
  if (ticket <= sent_upto_) return false;
  if (!failed_) callbacks_.emplace(ticket, std::move(done));
  return true;
}

void ClusterOutbox::wait_sent(uint64_t ticket) {
  std::unique_lock lock(mu_);
  if (ticket > sent_upto_) {
    flush_now_ = true;  // someone waits: no reason to let the batch age
    changed_.notify_all();
  }
  changed_.wait(lock, [&] { return ticket <= sent_upto_ || failed_; });
  if (ticket > sent_upto_) throw RedisError("cluster links not sent: an earlier send failed");
}

bool ClusterOutbox::idle() const {
  std::lock_guard lock(mu_);
  return queued_.empty() && !sending_ && callbacks_.empty();
}

void ClusterOutbox::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool ClusterOutbox::due(std::chrono::steady_clock::time_point now, std::chrono::steady_clock::time_point& wake) const {
  if (queued_.empty()) return false;
  if (stopping_ || flush_now_ || now - oldest_ >= max_age_) return true;
  for (const auto& [node, urls] : queued_urls_) {
    if (urls >= max_urls_) return true;
  }
  wake = oldest_ + max_age_;
  return false;
}

void ClusterOutbox::run() {
  std::unique_lock lock(mu_);
  for (;;) {
    auto wake = std::chrono::steady_clock::time_point::max();
    const auto now = std::chrono::steady_clock::now();
    if (!due(now, wake)) {
      if (stopping_ || failed_) return;  // nothing queued: stopped; failed: nothing is sent any more
      changed_.wait_until(lock, wake);
      continue;
    }
    std::map<uint32_t, std::vector<RoutedBatch>> batches = std::exchange(queued_, {});
    queued_urls_.clear();
    flush_now_ = false;
    const uint64_t upto = next_ticket_ - 1;
    sending_ = true;
    lock.unlock();
    std::string error;
    try {
      for (const auto& [node, list] : batches) link_.send(node, list);
    } catch (const std::exception& e) {  // Redis, or encoding the batches (bad_alloc): the same stop
      error = e.what();
    }
    lock.lock();
    if (!error.empty()) {
      failed_ = true;
      queued_.clear();
      queued_urls_.clear();
      callbacks_.clear();
      sending_ = false;
      lock.unlock();
      changed_.notify_all();
      on_failure_(error);
      return;
    }
    sent_upto_ = upto;
    std::vector<std::function<void()>> released;
    for (auto it = callbacks_.begin(); it != callbacks_.end() && it->first <= upto; it = callbacks_.erase(it)) {
      released.push_back(std::move(it->second));
    }
    lock.unlock();
    changed_.notify_all();
    for (std::function<void()>& done : released) {
      try {
        done();
      } catch (const std::exception& e) {  // the caller's clean stop, never std::terminate on this thread
        on_failure_(std::string("after a send: ") + e.what());
      }
    }
    lock.lock();
    sending_ = false;
  }
}

}  // namespace bloomcrawl
