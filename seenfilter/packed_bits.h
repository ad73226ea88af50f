// Values of `bits` bits (1..57) packed end to end in little-endian 64-bit words: value i's bit j
// is bit i·bits + j of the stream. The array ends with one word of padding, so reading a value
// is one unaligned 8-byte load that never leaves it. The fuse filter's cells and the sorted
// filter's low parts are stored so (docs/seenfilter.md).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace bloomcrawl::seenfilter {

static_assert(std::endian::native == std::endian::little, "packed values are read as little-endian words");

// Words holding `count` values of `bits` bits, the padding word included.
inline uint64_t packed_words(uint64_t count, uint32_t bits) { return (count * bits + 63) / 64 + 1; }

inline uint64_t read_packed(const uint64_t* words, uint64_t index, uint32_t bits, uint64_t mask) {
  const uint64_t bit = index * bits;
  uint64_t word;
  std::memcpy(&word, reinterpret_cast<const uint8_t*>(words) + (bit >> 3), sizeof word);
  return (word >> (bit & 7)) & mask;
}

// ORs `value` (< 2^bits) into value `index`'s place, which must be zero.
inline void or_packed(uint64_t* words, uint64_t index, uint32_t bits, uint64_t value) {
  const uint64_t bit = index * bits;
  const uint64_t offset = bit & 63;
  words[bit >> 6] |= value << offset;
  if (offset + bits > 64) words[(bit >> 6) + 1] |= value >> (64 - offset);
}

}  // namespace bloomcrawl::seenfilter
