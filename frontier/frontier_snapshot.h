// The frontier snapshot byte format (specified in docs/frontier.md, "Snapshot format"): an
// 8-byte magic with the version, a body of varints and length-prefixed bytes, and a CRC-32 of
// everything before it. FrontierState::snapshot()/restore() in frontier_snapshot.cc write and
// read it; the constants are public so tests and the fuzz target can build framed inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bloomcrawl {

inline constexpr std::string_view kFrontierSnapshotMagic{"BCFRNT\x00\x01", 8};  // version 1
inline constexpr size_t kFrontierSnapshotChecksumBytes = 4;
inline constexpr uint64_t kFrontierSnapshotHostHeld = 1;  // host flags bit: held

// CRC-32 (IEEE 802.3, as zlib's crc32) of `bytes`.
uint32_t frontier_snapshot_checksum(std::string_view bytes);
// A host's settings as both the snapshot and the disk state file write them:
// key group flags delay concurrency pages (docs/frontier.md).
struct FrontierHostSettings {
  std::string_view key;
  uint32_t group_index = 0;  // 0 = the host's own group, else 1 + index among named groups
  uint64_t flags = 0;
  uint64_t delay_field = 0;  // 0 = default, else delay_ms + 1
  uint32_t concurrency = 0;
  uint64_t dispatched = 0;  // pages dispatched and not in flight
};
void append_host_settings(std::string& out, const FrontierHostSettings& host);

class SnapshotReader;
std::vector<std::string_view> read_group_names(SnapshotReader& in);

// Appends the checksum of `body` (FrontierImage::encode_body()), making it a snapshot.
void seal_frontier_snapshot(std::string& body);

}  // namespace bloomcrawl
