// The frontier snapshot byte format (specified in docs/frontier.md, "Snapshot format"): an
// 8-byte magic with the version, a body of varints and length-prefixed bytes, and a CRC-32 of
// everything before it. FrontierState::snapshot()/restore() in frontier_snapshot.cc write and
// read it; the constants are public so tests and the fuzz target can build framed inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace bloomcrawl {

inline constexpr std::string_view kFrontierSnapshotMagic{"BCFRNT\x00\x01", 8};  // version 1
inline constexpr size_t kFrontierSnapshotChecksumBytes = 4;
inline constexpr uint64_t kFrontierSnapshotHostHeld = 1;  // host flags bit: held

// CRC-32 (IEEE 802.3, as zlib's crc32) of `bytes`.
uint32_t frontier_snapshot_checksum(std::string_view bytes);
// Appends the checksum of `body` (FrontierImage::encode_body()), making it a snapshot.
void seal_frontier_snapshot(std::string& body);

}  // namespace bloomcrawl
