// ClusterOutbox: the links a node sends to other nodes, batched across pages (docs/cluster.md,
// "Links to other nodes' hosts"). A page's links to one owner average 1-2 URLs; sending each page's
// alone cost an XADD per page and an inbox entry for the owner to read and acknowledge.
//
// Contract:
// - add() queues a batch for its owner and returns its ticket (tickets grow by one per add()). Its
//   own thread sends what is queued, one XADD per owner (ClusterLink::send), once an owner has
//   `max_urls` URLs waiting or the oldest batch has waited `max_age`, and at stop().
// - A batch is in Redis once sent(ticket) is true. The caller must not record as done the work that
//   produced a batch before then (the crawler journals a page's completion only after its links are
//   sent, so a crash before that fetches the page again and sends them again): after_send() runs a
//   callback on the outbox's thread once the batch is sent, wait_sent() blocks until it is.
// - last_ticket() is the ticket of the calling thread's last add() (0: none): what that thread's
//   work so far depends on.
// - idle(): nothing queued, nothing being sent, no callback waiting. A node is idle for the end of
//   the crawl only with its outbox idle: a URL waiting here is in no inbox yet.
// - A send that fails (Redis gone for longer than RedisClient reconnects, or any other exception
//   while sending) fails the outbox for good: `on_failure` is called once with the error, what is
//   queued is dropped, callbacks waiting are never run (their work stays undone, so a resume redoes
//   it) and wait_sent() throws RedisError. An add() after that still returns a ticket of its own,
//   recorded as the thread's last and never sent: work depending on it is never recorded as done.
//   Callbacks never run on a thread that add()s, and a callback must not wait_sent(); one that
//   throws is reported to `on_failure` too (its work is undone; the caller stops).
// - Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "crawler/cluster/cluster_link.h"

namespace bloomcrawl {

class ClusterOutbox {
 public:
  ClusterOutbox(ClusterLink& link, size_t max_urls, std::chrono::milliseconds max_age,
                std::function<void(const std::string&)> on_failure);
  ~ClusterOutbox();  // stop()
  ClusterOutbox(const ClusterOutbox&) = delete;
  ClusterOutbox& operator=(const ClusterOutbox&) = delete;

  uint64_t add(uint32_t node, RoutedBatch batch);
  uint64_t last_ticket() const;
  bool sent(uint64_t ticket) const;
  // False when the batch of `ticket` is sent already (`done` is not called: the caller goes on).
  bool after_send(uint64_t ticket, std::function<void()> done);
  void wait_sent(uint64_t ticket);
  bool idle() const;
  // Sends what is queued, runs the callbacks it releases and ends the thread. Idempotent.
  void stop();

 private:
  void run();
  // Under mu_: whether the queue is due to be sent now, and if not, when it will be.
  bool due(std::chrono::steady_clock::time_point now, std::chrono::steady_clock::time_point& wake) const;

  ClusterLink& link_;
  const size_t max_urls_;
  const std::chrono::milliseconds max_age_;
  const std::function<void(const std::string&)> on_failure_;

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::map<uint32_t, std::vector<RoutedBatch>> queued_;  // by owner
  std::map<uint32_t, size_t> queued_urls_;
  std::chrono::steady_clock::time_point oldest_;  // of what is queued
  uint64_t next_ticket_ = 1;
  uint64_t sent_upto_ = 0;  // every ticket up to this one is in Redis
  bool sending_ = false;
  bool failed_ = false;
  bool stopping_ = false;
  bool flush_now_ = false;                                     // a wait_sent() caller waits for what is queued
  std::multimap<uint64_t, std::function<void()>> callbacks_;   // by ticket
  std::unordered_map<std::thread::id, uint64_t> last_ticket_;  // by the thread that add()ed
  std::thread thread_;
};

}  // namespace bloomcrawl
