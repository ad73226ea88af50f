#include "frontier/host_queue.h"

#include <algorithm>

namespace bloomcrawl {

RecordFifo& HostQueue::bucket_for(uint32_t depth) {
  auto it = std::lower_bound(buckets_.begin(), buckets_.end(), depth,
                             [](const DepthBucket& bucket, uint32_t d) { return bucket.depth < d; });
  if (it == buckets_.end() || it->depth != depth) it = buckets_.insert(it, DepthBucket{depth, {}});
  return it->urls;
}

uint32_t HostQueue::shared_prefix_length(std::string_view url) const {
  const size_t limit = std::min(url.size(), reference_.size());
  size_t shared = 0;
  while (shared < limit && url[shared] == reference_[shared]) ++shared;
  return static_cast<uint32_t>(shared);
}

void HostQueue::decode(std::string_view reference, const RecordFifo::Record& record, std::string* url) {
  url->clear();
  if (record.tag > 0) url->append(reference.data(), record.tag);
  url->append(record.bytes);
}

void HostQueue::pin(PinnedRecords& records, std::vector<PinnedBucket>& buckets) const {
  for (const DepthBucket& bucket : buckets_) {
    const size_t first = records.spans();
    bucket.urls.pin(records);
    buckets.push_back({bucket.depth, first, records.spans()});
  }
}

void HostQueue::push_back(std::string_view url, uint32_t depth) {
  const uint32_t shared = shared_prefix_length(url);
  bucket_for(depth).push_back(shared, url.substr(shared));
}

void HostQueue::push_front(std::string_view url, uint32_t depth) {
  const uint32_t shared = shared_prefix_length(url);
  bucket_for(depth).push_front(shared, url.substr(shared));
}

uint32_t HostQueue::pop_front(std::string* url) {
  DepthBucket& bucket = buckets_.front();
  decode(reference_, bucket.urls.front(), url);
  bucket.urls.pop_front();
  const uint32_t depth = bucket.depth;
  if (bucket.urls.empty()) buckets_.erase(buckets_.begin());
  if (buckets_.empty()) buckets_.shrink_to_fit();  // idle hosts are the majority: hold no memory
  return depth;
}

void HostQueue::clear() {
  buckets_.clear();
  buckets_.shrink_to_fit();
}

uint64_t HostQueue::size() const {
  uint64_t total = 0;
  for (const DepthBucket& bucket : buckets_) total += bucket.urls.size();
  return total;
}

size_t HostQueue::allocated_bytes() const {
  size_t total = buckets_.capacity() * sizeof(DepthBucket);
  for (const DepthBucket& bucket : buckets_) total += bucket.urls.allocated_bytes();
  return total;
}

}  // namespace bloomcrawl
