#include "frontier/disk_queues.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace bloomcrawl {

DiskQueues::DiskQueues(std::unique_ptr<UrlStore> store, uint64_t head_budget, uint64_t next_seq,
                       std::vector<SeqRange> stale)
    : store_(std::move(store)), head_budget_(head_budget), next_seq_(next_seq), stale_(std::move(stale)) {}

void DiskQueues::add_host() {
  Queue& queue = queues_.emplace_back();
  queue.cursor = StoreKey{static_cast<uint32_t>(queues_.size() - 1), 0, 0};
}

void DiskQueues::load(Queue& queue, const StoreKey& key, std::string url) {
  head_bytes_ += url.size() + kHeadEntryOverhead;
  queue.head.emplace(key, std::move(url));
}

// `key` (already in the store) becomes unloaded; head entries after it leave RAM, so that the
// head stays a prefix of the host's pop order.
void DiskQueues::unload_from(Queue& queue, const StoreKey& key) {
  queue.cursor = queue.unloaded == 0 ? key : std::min(queue.cursor, key);
  ++queue.unloaded;
  for (auto it = queue.head.upper_bound(key); it != queue.head.end();) {
    head_bytes_ -= it->second.size() + kHeadEntryOverhead;
    it = queue.head.erase(it);
    ++queue.unloaded;
  }
}

void DiskQueues::push(uint32_t host, std::string_view url, uint32_t depth) {
  const StoreKey key{host, depth, next_seq_++};
  store_->put(key, url);
  Queue& queue = queues_[host];
  const bool next_in_line = queue.unloaded == 0 || key < queue.cursor;
  // Pushes fill at most half the budget: the rest is for refills, or a crawl whose heads were
  // filled by its first pushes would refill every other host one URL (one store seek) at a time.
  const bool room =
      queue.head.size() < kHeadEntries && head_bytes_ + url.size() + kHeadEntryOverhead <= head_budget_ / 2;
  if (next_in_line && room) {
    load(queue, key, std::string(url));
  } else {
    unload_from(queue, key);
  }
}

bool DiskQueues::stale(uint64_t seq) const {
  return std::any_of(stale_.begin(), stale_.end(),
                     [seq](const SeqRange& r) { return seq >= r.first && seq < r.second; });
}

// Reads first and changes the queue after, so that a scan that throws (a failed store) leaves
// the host as it was.
void DiskQueues::refill(uint32_t host) {
  Queue& queue = queues_[host];
  std::vector<std::pair<StoreKey, std::string>> loaded;
  std::vector<StoreKey> stale_keys;
  uint64_t loaded_bytes = 0;
  std::optional<StoreKey> cursor;  // set when the scan stopped for lack of room
  store_->scan(queue.cursor, [&](const StoreKey& key, std::string_view url) {
    if (held_.contains(key.seq)) return true;
    if (stale(key.seq)) {
      stale_keys.push_back(key);
      return true;
    }
    const uint64_t bytes = url.size() + kHeadEntryOverhead;
    const bool room = loaded.size() < kHeadEntries && head_bytes_ + loaded_bytes + bytes <= head_budget_;
    if (!loaded.empty() && !room) {
      cursor = key;
      return false;
    }
    loaded.emplace_back(key, url);
    loaded_bytes += bytes;
    return loaded.size() < queue.unloaded;
  });
  if (!cursor && loaded.size() < queue.unloaded) {
    throw std::runtime_error("frontier store " + store_->directory().string() + ": host " + std::to_string(host) +
                             " should have " + std::to_string(queue.unloaded - loaded.size()) +
                             " more URLs in the store, but its key range ends: the store is missing data");
  }
  for (auto& [key, url] : loaded) load(queue, key, std::move(url));
  queue.unloaded -= loaded.size();
  if (cursor) queue.cursor = *cursor;
  // Stale keys are not queued in any generation that can still be restored: delete them now.
  if (!deferring_) {
    for (const StoreKey& key : stale_keys) store_->erase(key);
  }
}

StoreKey DiskQueues::pop(uint32_t host, std::string* url) {
  Queue& queue = queues_[host];
  if (queue.head.empty()) refill(host);
  auto first = queue.head.begin();
  const StoreKey key = first->first;
  *url = std::move(first->second);
  head_bytes_ -= url->size() + kHeadEntryOverhead;
  queue.head.erase(first);
  held_.insert(key.seq);
  return key;
}

void DiskQueues::requeue(const StoreKey& key, std::string url) {
  held_.erase(key.seq);
  Queue& queue = queues_[key.host];
  if (queue.unloaded == 0 || key < queue.cursor) {
    load(queue, key, std::move(url));
  } else {
    ++queue.unloaded;  // after the cursor: the next scan finds it in its place
  }
}

void DiskQueues::erase(const StoreKey& key) {
  if (deferring_) {
    held_.insert(key.seq);
    deferred_.push_back(key);
  } else {
    store_->erase(key);
  }
}

void DiskQueues::forget(const StoreKey& key) {
  if (!deferring_) held_.erase(key.seq);
  erase(key);
}

uint64_t DiskQueues::clear(uint32_t host) {
  Queue& queue = queues_[host];
  uint64_t bytes = 0;
  std::vector<StoreKey> unloaded;  // read before anything changes: a scan may throw
  if (queue.unloaded > 0) {
    store_->scan(queue.cursor, [&](const StoreKey& key, std::string_view url) {
      if (held_.contains(key.seq) || stale(key.seq)) return true;
      unloaded.push_back(key);
      bytes += url.size();
      return true;
    });
    queue.unloaded = 0;
  }
  for (auto& [key, url] : queue.head) {
    bytes += url.size();
    head_bytes_ -= url.size() + kHeadEntryOverhead;
    erase(key);
  }
  queue.head.clear();
  for (const StoreKey& key : unloaded) erase(key);
  return bytes;
}

void DiskQueues::for_each_queued(const std::function<void(uint32_t, std::string_view, uint32_t)>& visit) {
  store_->scan_all([&](const StoreKey& key, std::string_view url) {
    if (!held_.contains(key.seq) && !stale(key.seq)) visit(key.host, url, key.depth);
    return true;
  });
}

void DiskQueues::apply_deferred_deletes() {
  deferring_ = false;
  for (const StoreKey& key : deferred_) store_->erase(key);
  for (const StoreKey& key : deferred_) held_.erase(key.seq);
  deferred_.clear();
  deferred_.shrink_to_fit();
}

size_t DiskQueues::memory_bytes() const {
  return head_bytes_ + queues_.size() * sizeof(Queue) + held_.size() * 32 + store_->memory_bytes();
}

}  // namespace bloomcrawl
