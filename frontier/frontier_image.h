// FrontierImage: what a frontier snapshot holds (queued URLs, in-flight leases as released,
// per-host settings and page counts), captured at one instant by Frontier::capture() under the
// frontier's lock without copying a URL, and encoded into snapshot bytes later, on any thread,
// while the frontier goes on changing. That keeps a checkpoint's pause at O(hosts + queue
// chunks) of bookkeeping instead of serializing every queued URL under the lock.
// Queue chunks are pinned (host_queue_chunks.h); host keys and reference prefixes stay in the
// frontier's append-only string arena, which the image shares. Not thread-safe itself: one
// thread at a time encodes it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "frontier/frontier_snapshot.h"
#include "frontier/host_queue.h"
#include "frontier/host_queue_chunks.h"
#include "frontier/url_arena.h"

namespace bloomcrawl {

class FrontierImage {
 public:
  FrontierImage() = default;
  FrontierImage(FrontierImage&&) noexcept = default;
  FrontierImage& operator=(FrontierImage&&) noexcept = default;

  // The snapshot without its checksum (docs/frontier.md, "Snapshot format"), byte for byte what
  // Frontier::snapshot() would have written at the capture; seal_frontier_snapshot() adds it.
  std::string encode_body() const;
  uint64_t queued_urls() const { return queued_urls_; }

 private:
  friend class FrontierState;
  struct HostEntry {
    FrontierHostSettings settings;       // key in strings_
    std::string_view reference;          // the queue's reference prefix, in strings_
    uint64_t queued;                     // URLs in the pinned buckets
    uint64_t first_bucket, last_bucket;  // in buckets_ (up to hosts x depths)
    uint32_t first_lease, last_lease;    // in leases_ (in flight: bounded by concurrency)
  };
  struct LeaseEntry {
    uint32_t depth;
    std::string url;
  };

  std::shared_ptr<const UrlArena> strings_;
  std::vector<std::string_view> group_names_;  // named groups in creation order, in strings_
  std::vector<HostEntry> hosts_;
  std::vector<LeaseEntry> leases_;
  std::vector<HostQueue::PinnedBucket> buckets_;
  PinnedRecords records_;
  uint64_t queued_urls_ = 0;
  uint64_t queued_bytes_ = 0;
};

}  // namespace bloomcrawl
