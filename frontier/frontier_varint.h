// LEB128 varints (7 bits per byte, low bits first) shared by the compact URL queues and the
// snapshot format. Decoding is bounds-checked so corrupted bytes can never read past `end`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace bloomcrawl {

inline constexpr size_t kMaxVarintBytes = 10;

inline size_t varint_length(uint64_t value) {
  size_t length = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++length;
  }
  return length;
}

// Writes `value` at `dst` (room for varint_length(value) bytes) and returns the end of it.
inline char* encode_varint(char* dst, uint64_t value) {
  while (value >= 0x80) {
    *dst++ = static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  *dst++ = static_cast<char>(value);
  return dst;
}

inline void append_varint(std::string& out, uint64_t value) {
  char buffer[kMaxVarintBytes];
  out.append(buffer, encode_varint(buffer, value));
}

// Returns the byte after the varint, or nullptr when it is truncated or longer than 64 bits.
inline const char* decode_varint(const char* p, const char* end, uint64_t* value) {
  uint64_t result = 0;
  for (unsigned shift = 0; shift < 64 && p < end; shift += 7) {
    const auto byte = static_cast<uint8_t>(*p++);
    if (shift == 63 && byte > 1) return nullptr;  // would overflow 64 bits
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return p;
    }
  }
  return nullptr;
}

}  // namespace bloomcrawl
