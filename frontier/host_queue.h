// HostQueue: the URLs waiting for one host, served breadth-first: every URL of a lower depth
// before any deeper one, FIFO within a depth. Each depth is one RecordFifo, so the depth is stored
// once per bucket, not per URL. A URL is front-coded against the host's reference prefix (the
// leading bytes of the first URL queued, kept once per host by the owner): only the length of the
// shared prefix and the differing suffix are stored, so "https://host/" is not repeated.
// URLs are opaque bytes; nothing here parses them. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/prefetch.h"
#include "frontier/host_queue_chunks.h"

namespace bloomcrawl {

class HostQueue {
 public:
  // The owner keeps the referenced bytes alive (and unchanged) for the queue's lifetime.
  void set_reference_prefix(std::string_view stable_prefix) { reference_ = stable_prefix; }
  bool has_reference_prefix() const { return reference_.data() != nullptr; }

  void push_back(std::string_view url, uint32_t depth);
  // Puts a URL back ahead of the others of its depth (a lease returned unfetched).
  void push_front(std::string_view url, uint32_t depth);
  // Removes the next URL in breadth-first order into *url and returns its depth. Requires !empty().
  uint32_t pop_front(std::string* url);
  void clear();

  bool empty() const { return buckets_.empty(); }
  uint64_t size() const;
  size_t allocated_bytes() const;

  // Visits (url, depth) in the order pop_front would return them.
  template <typename Visitor>
  void for_each(Visitor&& visit) const {
    std::string url;
    for (const DepthBucket& bucket : buckets_) {
      bucket.urls.for_each([&](const RecordFifo::Record& record) {
        decode(reference_, record, &url);
        visit(std::string_view(url), bucket.depth);
      });
    }
  }

  // The queue as it is now, readable later on another thread (RecordFifo::pin): one entry per
  // depth, in pop order, naming its span range in `records`. A record is a URL front-coded
  // against reference_prefix() (tag = shared prefix length), which the owner keeps alive.
  struct PinnedBucket {
    uint32_t depth;
    size_t first_span;
    size_t last_span;
  };
  void pin(PinnedRecords& records, std::vector<PinnedBucket>& buckets) const;
  // Cache hints for a caller about to pin many queues: the bucket array, then (once that is
  // cached) the head chunks. Issued a few hosts ahead, the misses overlap instead of queueing.
  void prefetch_buckets() const { prefetch_for_read(buckets_.data()); }
  void prefetch_chunks() const {
    for (const DepthBucket& bucket : buckets_) bucket.urls.prefetch_head();
  }
  std::string_view reference_prefix() const { return reference_; }

 private:
  struct DepthBucket {
    uint32_t depth;
    RecordFifo urls;
  };

  RecordFifo& bucket_for(uint32_t depth);
  uint32_t shared_prefix_length(std::string_view url) const;
  static void decode(std::string_view reference, const RecordFifo::Record& record, std::string* url);

  std::vector<DepthBucket> buckets_;  // ascending depth, none empty
  std::string_view reference_;
};

}  // namespace bloomcrawl
