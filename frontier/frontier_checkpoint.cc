// FrontierState's disk checkpoint steps and the state file: docs/frontier.md, "Checkpoints of a
// disk frontier" and "State file format".
#include "frontier/frontier_checkpoint.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "base/coding.h"
#include "frontier/frontier_state.h"
#include "frontier/snapshot_reader.h"

namespace bloomcrawl {

DiskCheckpointCut FrontierState::begin_disk_checkpoint() {
  DiskCheckpointCut cut;
  cut.strings = strings_;
  const std::vector<uint32_t> group_index = group_indices(&cut.group_names);
  const auto host_count = static_cast<uint32_t>(hosts_.size());
  cut.hosts.resize(host_count);
  for (uint32_t id = 0; id < host_count; ++id) {
    const Host& host = hosts_[id];
    DiskCheckpointCut::Host& out = cut.hosts[id];
    // In-flight leases are still in the store: they are saved as queued, as release() would.
    out.settings = host_settings(host, group_index);
    out.settings.dispatched -= host.in_flight;
    out.queued = queue_size(id) + host.in_flight;
  }
  cut.queued_bytes = queued_bytes_;
  for (const auto& [lease_id, lease] : leases_) cut.queued_bytes += lease.url.size();
  cut.queued = queued_ + leases_.size();
  cut.seq_at_capture = disk_->next_seq();
  disk_->defer_deletes();
  return cut;
}

void FrontierState::finish_disk_checkpoint(DiskCheckpointCut& cut) {
  disk_->apply_deferred_deletes();
  cut.next_seq = disk_->next_seq();
  cut.stale = disk_->stale_ranges();
  if (cut.next_seq > cut.seq_at_capture) cut.stale.emplace_back(cut.seq_at_capture, cut.next_seq);
}

std::string encode_frontier_state(const DiskCheckpointCut& cut) {
  std::string out(kFrontierStateMagic);
  out.reserve(out.size() + 32 + 16 * cut.stale.size() + 32 * cut.group_names.size() + 40 * cut.hosts.size());
  append_varint(out, cut.next_seq);
  append_varint(out, cut.queued_bytes);
  append_varint(out, cut.stale.size());
  for (const auto& [from, to] : cut.stale) {
    append_varint(out, from);
    append_varint(out, to);
  }
  append_varint(out, cut.group_names.size());
  for (std::string_view name : cut.group_names) {
    append_varint(out, name.size());
    out.append(name);
  }
  append_varint(out, cut.hosts.size());
  for (const DiskCheckpointCut::Host& host : cut.hosts) {
    append_host_settings(out, host.settings);
    append_varint(out, host.queued);
  }
  seal_frontier_snapshot(out);
  return out;
}

FrontierState FrontierState::open_disk_checkpoint(const std::filesystem::path& directory, FrontierOptions options) {
  if (options.store_directory.empty()) {
    throw std::invalid_argument("Frontier::open_checkpoint: FrontierOptions::store_directory is not set");
  }
  const std::filesystem::path state_path = directory / kFrontierStateFile;
  std::ifstream file(state_path, std::ios::binary);
  if (!file) throw std::runtime_error("frontier checkpoint: cannot read " + state_path.string());
  std::ostringstream content;
  content << file.rdbuf();
  const std::string bytes = std::move(content).str();

  SnapshotReader in(bytes, kFrontierStateMagic, "frontier state file " + state_path.string());
  const uint64_t next_seq = in.varint("next seq");
  const uint64_t queued_bytes = in.varint("queued bytes");
  std::vector<DiskQueues::SeqRange> stale(in.count("stale range count", 2));
  for (DiskQueues::SeqRange& range : stale) {
    const size_t at = in.offset();
    range.first = in.varint("stale range start");
    range.second = in.varint("stale range end");
    if (range.first > range.second || range.second > next_seq) in.fail_at(at, "stale range out of order");
  }
  UrlStore::clone(directory / kFrontierStoreDirectory, options.store_directory);
  std::unique_ptr<DiskQueues> disk = open_disk_queues(options, next_seq, std::move(stale));
  FrontierState state(std::move(options), std::move(disk));
  const std::vector<std::string_view> group_names = read_group_names(in);
  const uint64_t host_count = in.count("host count", 7);
  for (uint64_t i = 0; i < host_count; ++i) {
    const uint32_t id = state.restore_host(in, group_names);
    const uint64_t queued = in.varint("host queued URLs");
    state.disk_->restore_queued(id, queued);
    state.queued_ += queued;
    state.refresh(id);
  }
  if (!in.at_end()) in.fail("unexpected bytes after the last host");
  state.queued_bytes_ = queued_bytes;
  return state;
}

}  // namespace bloomcrawl
