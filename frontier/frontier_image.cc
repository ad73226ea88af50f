// FrontierState::capture() and FrontierImage::encode_body(): see frontier_image.h; the byte
// layout is docs/frontier.md, "Snapshot format".
#include "frontier/frontier_image.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "base/coding.h"
#include "frontier/frontier_snapshot.h"
#include "frontier/frontier_state.h"

namespace bloomcrawl {
namespace {

void append_bytes(std::string& out, std::string_view bytes) {
  append_varint(out, bytes.size());
  out.append(bytes);
}

}  // namespace

std::vector<uint32_t> FrontierState::group_indices(std::vector<std::string_view>* names) const {
  // Named groups in creation order, so that restore(snapshot()) snapshots to the same bytes.
  std::vector<std::pair<uint32_t, std::string_view>> named(group_ids_.size());
  std::transform(group_ids_.begin(), group_ids_.end(), named.begin(),
                 [](const auto& entry) { return std::make_pair(entry.second, entry.first); });
  std::sort(named.begin(), named.end());
  std::vector<uint32_t> group_index(groups_.size(), 0);  // 0 = the host's own group
  names->reserve(named.size());
  for (size_t i = 0; i < named.size(); ++i) {
    group_index[named[i].first] = static_cast<uint32_t>(i + 1);
    names->push_back(named[i].second);
  }
  return group_index;
}

FrontierHostSettings FrontierState::host_settings(const Host& host, const std::vector<uint32_t>& group_index) {
  FrontierHostSettings settings;
  settings.key = host.key;
  settings.group_index = group_index[host.group];
  settings.flags = host.held ? kFrontierSnapshotHostHeld : 0;
  settings.delay_field = host.delay_ms == kDefaultDelay ? 0 : uint64_t{host.delay_ms} + 1;
  settings.concurrency = host.concurrency;
  settings.dispatched = host.dispatched;
  return settings;
}

FrontierImage FrontierState::capture() const {
  if (disk_) throw std::logic_error("Frontier::capture: a disk frontier is saved with Frontier::checkpoint()");
  FrontierImage image;
  image.strings_ = strings_;
  image.queued_urls_ = queued_;
  image.queued_bytes_ = queued_bytes_;

  const std::vector<uint32_t> group_index = group_indices(&image.group_names_);

  // In-flight leases go ahead of their host's queue, in lease order, as release() would put them.
  std::vector<std::tuple<uint32_t, uint64_t, const InFlight*>> by_host;
  by_host.reserve(leases_.size());
  for (const auto& [lease_id, lease] : leases_) by_host.emplace_back(lease.host, lease_id, &lease);
  std::sort(by_host.begin(), by_host.end());
  image.leases_.reserve(by_host.size());
  for (const auto& entry : by_host) {
    const InFlight& lease = *std::get<2>(entry);
    image.leases_.push_back({lease.depth, lease.url});
  }

  image.hosts_.reserve(hosts_.size());
  image.buckets_.reserve(hosts_.size());
  auto next_lease = by_host.begin();
  // Each host's queue is two dependent pointer hops from the host (bucket array, then chunk);
  // walking a million hosts one miss at a time was most of the capture.
  constexpr uint32_t kBucketsAhead = 16;
  constexpr uint32_t kChunksAhead = 8;
  const auto host_count = static_cast<uint32_t>(hosts_.size());
  for (uint32_t id = 0; id < host_count; ++id) {
    if (id + kBucketsAhead < host_count) hosts_[id + kBucketsAhead].queue.prefetch_buckets();
    if (id + kChunksAhead < host_count) hosts_[id + kChunksAhead].queue.prefetch_chunks();
    const Host& host = hosts_[id];
    FrontierImage::HostEntry entry;
    entry.settings = host_settings(host, group_index);
    entry.reference = host.queue.reference_prefix();
    entry.queued = host.queue.size();
    entry.first_lease = static_cast<uint32_t>(next_lease - by_host.begin());
    while (next_lease != by_host.end() && std::get<0>(*next_lease) == id) ++next_lease;
    entry.last_lease = static_cast<uint32_t>(next_lease - by_host.begin());
    entry.settings.dispatched = host.dispatched - (entry.last_lease - entry.first_lease);
    entry.first_bucket = image.buckets_.size();
    host.queue.pin(image.records_, image.buckets_);
    entry.last_bucket = image.buckets_.size();
    image.hosts_.push_back(entry);
  }
  return image;
}

std::string FrontierImage::encode_body() const {
  std::string out(kFrontierSnapshotMagic);
  // Sized up front: growing a string of hundreds of MB by doubling copies it several times.
  out.reserve(queued_bytes_ + 6 * queued_urls_ + 64 * hosts_.size() + 64 * leases_.size() + 64);
  append_varint(out, group_names_.size());
  for (std::string_view name : group_names_) append_bytes(out, name);

  append_varint(out, hosts_.size());
  for (const HostEntry& host : hosts_) {
    append_host_settings(out, host.settings);
    append_varint(out, host.last_lease - host.first_lease + host.queued);
    for (uint32_t l = host.first_lease; l < host.last_lease; ++l) {
      append_varint(out, leases_[l].depth);
      append_bytes(out, leases_[l].url);
    }
    for (uint64_t b = host.first_bucket; b < host.last_bucket; ++b) {
      const HostQueue::PinnedBucket& bucket = buckets_[b];
      records_.for_each(bucket.first_span, bucket.last_span, [&](const RecordFifo::Record& record) {
        // The URL is the reference prefix's first `tag` bytes and the stored suffix
        // (HostQueue::decode), written straight out rather than assembled first.
        append_varint(out, bucket.depth);
        append_varint(out, record.tag + record.bytes.size());
        out.append(host.reference.data(), record.tag);
        out.append(record.bytes);
      });
    }
  }
  return out;
}

}  // namespace bloomcrawl
