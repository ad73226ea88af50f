// Little-endian integers in the crawl checkpoint's files (manifest, audit set, journal), as
// docs/checkpoint-format.md specifies them, independent of the host's byte order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace bloomcrawl {

inline void put_le(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(char((value >> (8 * i)) & 0xff));
}

// The caller has checked that `bytes` bytes are there at `at`.
inline uint64_t get_le(std::string_view in, size_t at, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= uint64_t(uint8_t(in[at + size_t(i)])) << (8 * i);
  return value;
}

}  // namespace bloomcrawl
