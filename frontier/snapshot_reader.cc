#include "frontier/snapshot_reader.h"

#include <stdexcept>

#include "base/coding.h"
#include "frontier/frontier_snapshot.h"

namespace bloomcrawl {

SnapshotReader::SnapshotReader(std::string_view framed, std::string_view magic, std::string subject)
    : subject_(std::move(subject)) {
  const size_t framing = magic.size() + kFrontierSnapshotChecksumBytes;
  if (framed.size() < framing) {
    fail_at(framed.size(), "only " + std::to_string(framed.size()) + " bytes, shorter than the header and checksum");
  }
  const size_t version_at = magic.size() - 1;
  if (framed.substr(0, version_at) != magic.substr(0, version_at)) fail_at(0, "bad magic, not a " + subject_);
  if (framed[version_at] != magic[version_at]) {
    fail_at(version_at, "unsupported version " + std::to_string(static_cast<uint8_t>(framed[version_at])));
  }
  const size_t checked = framed.size() - kFrontierSnapshotChecksumBytes;
  const auto stored = static_cast<uint32_t>(get_le(framed, checked, kFrontierSnapshotChecksumBytes));
  const uint32_t computed = frontier_snapshot_checksum(framed.substr(0, checked));
  if (stored != computed) {
    fail_at(checked, "checksum mismatch (stored " + std::to_string(stored) + ", computed " + std::to_string(computed) +
                         "): the " + subject_ + " is corrupted or truncated");
  }
  begin_ = p_ = framed.data() + magic.size();
  end_ = framed.data() + checked;
  base_ = magic.size();
}

uint64_t SnapshotReader::varint(const char* what) {
  uint64_t value = 0;
  const char* next = decode_varint(p_, end_, &value);
  if (next == nullptr) fail(std::string("truncated or malformed varint for ") + what);
  p_ = next;
  return value;
}

uint32_t SnapshotReader::u32(const char* what) {
  const size_t at = offset();
  const uint64_t value = varint(what);
  if (value > UINT32_MAX) fail_at(at, std::string(what) + " " + std::to_string(value) + " exceeds 32 bits");
  return static_cast<uint32_t>(value);
}

std::string_view SnapshotReader::bytes(const char* what) {
  const size_t at = offset();
  const uint64_t length = varint(what);
  if (length > static_cast<uint64_t>(end_ - p_)) {
    fail_at(at, std::string(what) + " of " + std::to_string(length) + " bytes runs past the end");
  }
  const std::string_view result(p_, length);
  p_ += length;
  return result;
}

uint64_t SnapshotReader::count(const char* what, size_t min_bytes_each) {
  const size_t at = offset();
  const uint64_t value = varint(what);
  if (value > static_cast<uint64_t>(end_ - p_) / min_bytes_each) {
    fail_at(at, std::string(what) + " " + std::to_string(value) + " cannot fit in the remaining " +
                    std::to_string(end_ - p_) + " bytes");
  }
  return value;
}

void SnapshotReader::fail_at(size_t at, const std::string& what) const {
  throw std::runtime_error(subject_ + ": " + what + " at byte " + std::to_string(at));
}

}  // namespace bloomcrawl
