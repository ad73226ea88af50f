// Rank and select within one 64-bit word, broadword (Vigna, "Broadword implementation of
// rank/select queries", 2008): the sorted filter's bucket search (sorted_filter.h) counts and
// selects the zero bits of its unary part. We build for baseline x86-64, where std::popcount is a
// call into libgcc and there is no PDEP, and a lookup spent most of its time there and in a
// bit-by-bit select loop; these are a dozen branch-free operations each.
//
// Contract: byte_prefix_counts(x) holds in byte i the number of set bits in bytes 0..i of x (so its
// top byte is the word's count). select_bit(x, k) is the position (0-63) of x's set bit of rank k
// (k = 0: the lowest); k must be below the word's count.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace bloomcrawl::seenfilter {

inline constexpr uint64_t kEveryByte = 0x0101010101010101ULL;

constexpr uint64_t byte_prefix_counts(uint64_t x) {
  uint64_t s = x - ((x >> 1) & 0x5555555555555555ULL);
  s = (s & 0x3333333333333333ULL) + ((s >> 2) & 0x3333333333333333ULL);
  s = (s + (s >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
  return s * kEveryByte;
}

constexpr uint32_t count_bits(uint64_t x) { return static_cast<uint32_t>(byte_prefix_counts(x) >> 56); }

namespace internal {
inline constexpr size_t kSelectTableSize = size_t{256} * 8;
// kSelectInByte[b * 8 + k]: the position of byte b's set bit of rank k (8 where it has none).
constexpr std::array<uint8_t, kSelectTableSize> select_in_byte_table() {
  std::array<uint8_t, kSelectTableSize> t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t rank = 0;
    for (uint32_t k = 0; k < 8; ++k) t[b * 8 + k] = 8;
    for (uint32_t bit = 0; bit < 8; ++bit) {
      if ((b >> bit) & 1) t[b * 8 + rank++] = static_cast<uint8_t>(bit);
    }
  }
  return t;
}
inline constexpr std::array<uint8_t, kSelectTableSize> kSelectInByte = select_in_byte_table();
}  // namespace internal

// `sums` is byte_prefix_counts(x).
constexpr uint32_t select_bit(uint64_t x, uint64_t sums, uint32_t k) {
  constexpr uint64_t kHighBits = 0x80 * kEveryByte;
  // The bytes whose prefix count is at most k (no borrow crosses a byte: counts are at most 64);
  // the prefix counts grow, so they are the lowest ones, and the bit is in the first byte past them.
  const uint64_t at_most_k = ((k * kEveryByte | kHighBits) - sums) & kHighBits;
  const auto byte = static_cast<uint32_t>(((at_most_k >> 7) * kEveryByte) >> 56);
  const auto before = static_cast<uint32_t>(((sums << 8) >> (8 * byte)) & 0xff);  // bits in bytes below it
  const auto in_byte = static_cast<uint32_t>((x >> (8 * byte)) & 0xff);
  return 8 * byte + internal::kSelectInByte[in_byte * 8 + (k - before)];
}

constexpr uint32_t select_bit(uint64_t x, uint32_t k) { return select_bit(x, byte_prefix_counts(x), k); }

}  // namespace bloomcrawl::seenfilter
