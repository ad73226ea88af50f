// DiskQueues: the host queues of a disk-mode frontier. Every queued URL (and every in-flight
// lease) is in the UrlStore; RAM holds per host a bounded head, the next URLs in pop order, and
// the count and first key of the rest (docs/frontier.md, "Which URLs are where").
// Contract:
//  - Per host, pop() returns URLs breadth-first by depth, FIFO within a depth, as HostQueue does.
//  - pop() leaves the URL in the store, *held*: it is invisible to the host's queue until
//    requeue() (back into the queue) or forget() (deleted from the store).
//  - The heads together stay within `head_budget` bytes (pushes fill at most half of it), except
//    that a refill always loads one URL and a requeued lease always goes back to RAM when it is
//    next in line.
//  - A call that throws (a failed store: UrlStore) leaves the queues as they were; forget() and
//    clear() do not throw for a failed store.
//  - Between defer_deletes() and apply_deferred_deletes(), forget() and clear() delete nothing
//    from the store, so a store checkpoint taken meanwhile still holds every URL that was queued
//    or held at defer_deletes() (docs/frontier.md, "Checkpoints of a disk frontier").
// URLs are opaque bytes. Not thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "frontier/url_store.h"

namespace bloomcrawl {

class DiskQueues {
 public:
  // At most this many URLs of one host are loaded into RAM at once.
  static constexpr size_t kHeadEntries = 16;
  // Seqs in [first, second) are in the store but not queued (a restored checkpoint's stale range).
  using SeqRange = std::pair<uint64_t, uint64_t>;

  DiskQueues(std::unique_ptr<UrlStore> store, uint64_t head_budget, uint64_t next_seq = 0,
             std::vector<SeqRange> stale = {});

  // Hosts have dense ids in creation order.
  void add_host();
  // A restored host: `queued` of its URLs are in the store, none in RAM yet.
  void restore_queued(uint32_t host, uint64_t queued) { queues_[host].unloaded = queued; }

  void push(uint32_t host, std::string_view url, uint32_t depth);
  // Requires size(host) > 0. The URL's key stays in the store, held.
  StoreKey pop(uint32_t host, std::string* url);
  // A held key goes back into its host's queue, in its place by key order.
  void requeue(const StoreKey& key, std::string url);
  // A held key is done: deleted from the store (or once deletes are applied again).
  void forget(const StoreKey& key);
  // Removes every queued (not held) URL of the host; returns their total bytes.
  uint64_t clear(uint32_t host);

  // Calls visit(host, url, depth) for every queued (not held) URL, by host id and per host in pop
  // order: one pass over the store, whose keys are every queued URL (heads are copies), leases
  // and stale ones, which are skipped.
  void for_each_queued(const std::function<void(uint32_t, std::string_view, uint32_t)>& visit);

  uint64_t size(uint32_t host) const { return queues_[host].head.size() + queues_[host].unloaded; }
  bool empty(uint32_t host) const { return size(host) == 0; }

  // Also applies the store's pending writes, so that a store checkpoint taken next holds them.
  void defer_deletes() {
    store_->flush();
    deferring_ = true;
  }
  void apply_deferred_deletes();
  uint64_t next_seq() const { return next_seq_; }
  const std::vector<SeqRange>& stale_ranges() const { return stale_; }
  UrlStore& store() { return *store_; }
  // The store's first failure, empty while there is none (UrlStore::failure()).
  std::string failure() const { return store_->failure(); }
  size_t memory_bytes() const;

 private:
  // Per head entry beyond the URL bytes: the map node, key and string header.
  static constexpr uint64_t kHeadEntryOverhead = 96;
  struct Queue {
    std::map<StoreKey, std::string> head;
    uint64_t unloaded = 0;  // URLs in the store, not held, not in the head
    StoreKey cursor;        // the smallest key of those (when unloaded > 0); every head key is smaller
  };

  void load(Queue& queue, const StoreKey& key, std::string url);
  void unload_from(Queue& queue, const StoreKey& key);
  void refill(uint32_t host);
  bool stale(uint64_t seq) const;
  void erase(const StoreKey& key);

  std::unique_ptr<UrlStore> store_;
  uint64_t head_budget_;
  uint64_t head_bytes_ = 0;
  uint64_t next_seq_;
  std::vector<SeqRange> stale_;
  std::deque<Queue> queues_;
  std::unordered_set<uint64_t> held_;  // seqs leased, or forgotten while deletes are deferred
  std::vector<StoreKey> deferred_;
  bool deferring_ = false;
};

}  // namespace bloomcrawl
