// SnapshotReader: the validating reader of the frontier's framed files (the snapshot and the
// disk frontier's state file, docs/frontier.md): `magic body crc32`, the body made of varints and
// length-prefixed bytes. Every malformed input throws std::runtime_error "SUBJECT: WHAT at byte N".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace bloomcrawl {

class SnapshotReader {
 public:
  // Checks length, magic, version (the magic's last byte) and the CRC-32 of `framed`, and reads
  // its body. `subject` names the input in errors.
  SnapshotReader(std::string_view framed, std::string_view magic, std::string subject);

  uint64_t varint(const char* what);
  uint32_t u32(const char* what);
  std::string_view bytes(const char* what);
  // Rejects a count that cannot fit in the remaining bytes, before looping on it.
  uint64_t count(const char* what, size_t min_bytes_each);
  bool at_end() const { return p_ == end_; }
  size_t offset() const { return base_ + static_cast<size_t>(p_ - begin_); }
  [[noreturn]] void fail(const std::string& what) const { fail_at(offset(), what); }
  [[noreturn]] void fail_at(size_t at, const std::string& what) const;

 private:
  std::string subject_;
  const char* begin_ = nullptr;
  const char* p_ = nullptr;
  const char* end_ = nullptr;
  size_t base_ = 0;
};

}  // namespace bloomcrawl
