// Byte coding shared by every on-disk format: fixed-width little-endian integers (independent of
// the host's byte order) and LEB128 varints (7 bits per byte, low bits first). Pure functions;
// decoding is bounds-checked by the caller (fixed) or here (varint), never past `end`.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace bloomcrawl {

// The low `bytes` (1..8) bytes of `value`, little-endian.
inline void put_le(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

inline void store_le(uint8_t* p, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(value >> (8 * i));
}

// The caller has checked that `bytes` bytes are there at `p`.
inline uint64_t load_le(const uint8_t* p, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= static_cast<uint64_t>(p[i]) << (8 * i);
  return value;
}

// The caller has checked that `bytes` bytes are there at `at`.
inline uint64_t get_le(std::string_view in, size_t at, int bytes) {
  return load_le(reinterpret_cast<const uint8_t*>(in.data() + at), bytes);
}

// Arrays of fixed-width words (a filter's cells, a hash log's payload) in bulk, each little-endian:
// one copy on little-endian hosts. Word by word through put_le, a 30 MB filter file took 47-54 ms
// to encode, and the hash log's writer spent 12 ns per key.
template <typename Word>
requires std::is_unsigned_v<Word>
void put_le_words(std::string& out, std::span<const Word> words) {
  if constexpr (std::endian::native == std::endian::little) {
    const size_t at = out.size();
    out.resize(at + words.size_bytes());
    if (!words.empty()) std::memcpy(out.data() + at, words.data(), words.size_bytes());
  } else {
    for (const Word w : words) put_le(out, w, sizeof(Word));
  }
}

// The caller has checked that words.size_bytes() bytes are there at `at`.
template <typename Word>
requires std::is_unsigned_v<Word>
void get_le_words(std::string_view in, size_t at, std::span<Word> words) {
  if constexpr (std::endian::native == std::endian::little) {
    if (!words.empty()) std::memcpy(words.data(), in.data() + at, words.size_bytes());
  } else {
    for (Word& w : words) w = static_cast<Word>(get_le(in, std::exchange(at, at + sizeof(Word)), sizeof(Word)));
  }
}

inline void store_u32(uint8_t* p, uint32_t v) { store_le(p, v, 4); }
inline void store_u64(uint8_t* p, uint64_t v) { store_le(p, v, 8); }
inline uint32_t load_u32(const uint8_t* p) { return static_cast<uint32_t>(load_le(p, 4)); }
inline uint64_t load_u64(const uint8_t* p) { return load_le(p, 8); }

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
