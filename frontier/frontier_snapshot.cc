// FrontierState::snapshot() and restore(): see docs/frontier.md for the byte layout.
#include "frontier/frontier_snapshot.h"

#include <stdexcept>
#include <string>
#include <vector>

#include <zlib.h>

#include "base/coding.h"
#include "frontier/frontier_state.h"
#include "frontier/snapshot_reader.h"

namespace bloomcrawl {
uint32_t frontier_snapshot_checksum(std::string_view bytes) {
  // zlib's table-sliced CRC: a byte-at-a-time loop was ~12% of a 10M-URL checkpoint's CPU.
  uLong crc = crc32_z(0L, Z_NULL, 0);
  return static_cast<uint32_t>(
      crc32_z(crc, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<z_size_t>(bytes.size())));
}

void seal_frontier_snapshot(std::string& body) {
  put_le(body, frontier_snapshot_checksum(body), kFrontierSnapshotChecksumBytes);
}

std::string FrontierState::snapshot() const {
  std::string out = capture().encode_body();
  seal_frontier_snapshot(out);
  return out;
}

std::vector<std::string_view> read_group_names(SnapshotReader& in) {
  std::vector<std::string_view> group_names(in.count("group count", 1));
  for (std::string_view& name : group_names) {
    const size_t at = in.offset();
    name = in.bytes("group name");
    if (name.empty()) in.fail_at(at, "empty group name");
  }
  return group_names;
}

void append_host_settings(std::string& out, const FrontierHostSettings& host) {
  append_varint(out, host.key.size());
  out.append(host.key);
  append_varint(out, host.group_index);
  append_varint(out, host.flags);
  append_varint(out, host.delay_field);
  append_varint(out, host.concurrency);
  append_varint(out, host.dispatched);
}

uint32_t FrontierState::restore_host(SnapshotReader& in, const std::vector<std::string_view>& group_names) {
  const size_t at = in.offset();
  const std::string_view key = in.bytes("host key");
  if (is_known_host(key)) in.fail_at(at, "duplicate host key '" + std::string(key) + "'");
  const size_t group_at = in.offset();
  const uint64_t group = in.varint("host group");
  if (group > group_names.size()) {
    in.fail_at(group_at,
               "group index " + std::to_string(group) + " beyond " + std::to_string(group_names.size()) + " groups");
  }
  const size_t flags_at = in.offset();
  const uint64_t flags = in.varint("host flags");
  if ((flags & ~kFrontierSnapshotHostHeld) != 0) in.fail_at(flags_at, "unknown host flags " + std::to_string(flags));
  const uint32_t delay = in.u32("host delay");
  const uint32_t concurrency = in.u32("host concurrency");
  const uint64_t dispatched = in.varint("host pages dispatched");

  const uint32_t id = find_or_create_host(key, nullptr);
  // group_of, when set, has placed the host already: the configuration of this run decides.
  if (group != 0 && !options_.group_of) join_group(id, group_names[group - 1]);
  // A crawler that holds new hosts until robots.txt is known must re-learn it after a restart.
  if ((flags & kFrontierSnapshotHostHeld) != 0 || options_.hold_new_hosts) hold_host(key);
  if (delay != 0) set_own_delay(id, delay - 1);
  hosts_[id].concurrency = concurrency;
  hosts_[id].dispatched = dispatched;
  dispatched_ += dispatched;
  return id;
}

FrontierState FrontierState::restore(std::string_view bytes, FrontierOptions options) {
  SnapshotReader in(bytes, kFrontierSnapshotMagic, "frontier snapshot");
  FrontierState state(std::move(options));
  const std::vector<std::string_view> group_names = read_group_names(in);
  const uint64_t host_count = in.count("host count", 7);
  for (uint64_t i = 0; i < host_count; ++i) {
    const uint32_t id = state.restore_host(in, group_names);
    const uint64_t url_count = in.count("host URL count", 2);
    for (uint64_t u = 0; u < url_count; ++u) {
      const uint32_t depth = in.u32("URL depth");
      state.enqueue(id, in.bytes("URL"), depth);
    }
  }
  if (!in.at_end()) in.fail("unexpected bytes after the last host");
  return state;
}

}  // namespace bloomcrawl
