// FrontierState::snapshot() and restore(): see docs/frontier.md for the byte layout.
#include "frontier/frontier_snapshot.h"

#include <stdexcept>
#include <string>
#include <vector>

#include <zlib.h>

#include "base/coding.h"
#include "frontier/frontier_state.h"

namespace bloomcrawl {
namespace {

// Reads the body, naming the field and the absolute byte offset of anything malformed.
class SnapshotReader {
 public:
  SnapshotReader(std::string_view body, size_t base_offset)
      : begin_(body.data()), p_(body.data()), end_(body.data() + body.size()), base_(base_offset) {}

  uint64_t varint(const char* what) {
    uint64_t value = 0;
    const char* next = decode_varint(p_, end_, &value);
    if (next == nullptr) fail(std::string("truncated or malformed varint for ") + what);
    p_ = next;
    return value;
  }
  uint32_t u32(const char* what) {
    const size_t at = offset();
    const uint64_t value = varint(what);
    if (value > UINT32_MAX) fail_at(at, std::string(what) + " " + std::to_string(value) + " exceeds 32 bits");
    return static_cast<uint32_t>(value);
  }
  std::string_view bytes(const char* what) {
    const size_t at = offset();
    const uint64_t length = varint(what);
    if (length > static_cast<uint64_t>(end_ - p_)) {
      fail_at(at, std::string(what) + " of " + std::to_string(length) + " bytes runs past the end");
    }
    const std::string_view result(p_, length);
    p_ += length;
    return result;
  }
  // Rejects a count that cannot fit in the remaining bytes, before looping on it.
  uint64_t count(const char* what, size_t min_bytes_each) {
    const size_t at = offset();
    const uint64_t value = varint(what);
    if (value > static_cast<uint64_t>(end_ - p_) / min_bytes_each) {
      fail_at(at, std::string(what) + " " + std::to_string(value) + " cannot fit in the remaining " +
                      std::to_string(end_ - p_) + " bytes");
    }
    return value;
  }
  bool at_end() const { return p_ == end_; }
  size_t offset() const { return base_ + static_cast<size_t>(p_ - begin_); }
  [[noreturn]] void fail(const std::string& what) const { fail_at(offset(), what); }
  [[noreturn]] static void fail_at(size_t at, const std::string& what) {
    throw std::runtime_error("frontier snapshot: " + what + " at byte " + std::to_string(at));
  }

 private:
  const char* begin_;
  const char* p_;
  const char* end_;
  size_t base_;
};

}  // namespace

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

FrontierState FrontierState::restore(std::string_view bytes, FrontierOptions options) {
  const size_t framing = kFrontierSnapshotMagic.size() + kFrontierSnapshotChecksumBytes;
  if (bytes.size() < framing) {
    SnapshotReader::fail_at(bytes.size(),
                            "only " + std::to_string(bytes.size()) + " bytes, shorter than the header and checksum");
  }
  if (bytes.substr(0, kFrontierSnapshotMagic.size() - 1) != kFrontierSnapshotMagic.substr(0, 7)) {
    SnapshotReader::fail_at(0, "bad magic, not a frontier snapshot");
  }
  if (bytes[7] != kFrontierSnapshotMagic[7]) {
    SnapshotReader::fail_at(7, "unsupported version " + std::to_string(static_cast<uint8_t>(bytes[7])));
  }
  const size_t checked = bytes.size() - kFrontierSnapshotChecksumBytes;
  const auto stored = static_cast<uint32_t>(get_le(bytes, checked, kFrontierSnapshotChecksumBytes));
  const uint32_t computed = frontier_snapshot_checksum(bytes.substr(0, checked));
  if (stored != computed) {
    SnapshotReader::fail_at(checked, "checksum mismatch (stored " + std::to_string(stored) + ", computed " +
                                         std::to_string(computed) + "): the snapshot is corrupted or truncated");
  }

  SnapshotReader in(bytes.substr(kFrontierSnapshotMagic.size(), checked - kFrontierSnapshotMagic.size()),
                    kFrontierSnapshotMagic.size());
  FrontierState state(options);
  std::vector<std::string_view> group_names(in.count("group count", 1));
  for (std::string_view& name : group_names) {
    const size_t at = in.offset();
    name = in.bytes("group name");
    if (name.empty()) SnapshotReader::fail_at(at, "empty group name");
  }
  const uint64_t host_count = in.count("host count", 7);
  for (uint64_t i = 0; i < host_count; ++i) {
    const size_t at = in.offset();
    const std::string_view key = in.bytes("host key");
    if (state.is_known_host(key)) SnapshotReader::fail_at(at, "duplicate host key '" + std::string(key) + "'");
    const size_t group_at = in.offset();
    const uint64_t group = in.varint("host group");
    if (group > group_names.size()) {
      SnapshotReader::fail_at(group_at, "group index " + std::to_string(group) + " beyond " +
                                            std::to_string(group_names.size()) + " groups");
    }
    const size_t flags_at = in.offset();
    const uint64_t flags = in.varint("host flags");
    if ((flags & ~kFrontierSnapshotHostHeld) != 0)
      SnapshotReader::fail_at(flags_at, "unknown host flags " + std::to_string(flags));
    const uint32_t delay = in.u32("host delay");
    const uint32_t concurrency = in.u32("host concurrency");
    const uint64_t dispatched = in.varint("host pages dispatched");
    const uint64_t url_count = in.count("host URL count", 2);

    const uint32_t id = state.find_or_create_host(key, nullptr);
    if (group != 0) state.set_politeness_group(key, group_names[group - 1]);
    // A crawler that holds new hosts until robots.txt is known must re-learn it after a restart.
    if ((flags & kFrontierSnapshotHostHeld) != 0 || options.hold_new_hosts) state.hold_host(key);
    if (delay != 0) state.hosts_[id].delay_ms = delay - 1;
    state.hosts_[id].concurrency = concurrency;
    state.hosts_[id].dispatched = dispatched;
    state.dispatched_ += dispatched;
    for (uint64_t u = 0; u < url_count; ++u) {
      const uint32_t depth = in.u32("URL depth");
      state.enqueue(id, in.bytes("URL"), depth);
    }
  }
  if (!in.at_end()) in.fail("unexpected bytes after the last host");
  return state;
}

}  // namespace bloomcrawl
