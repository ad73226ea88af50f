// A key is hashed once (XXH3, 128 bits); every probe of every layer is derived from that hash,
// so a lookup across many layers costs one pass over the key's bytes.
//
// Layer i takes a 64-bit block selector and a 64-bit bit selector from the two halves, remixed
// with a layer salt so layers are independent. The block index is fastrange (multiply-high of
// the 64-bit selector by the block count), so it stays uniform for any block count up to 2^64.
// Bit positions are the top 9 bits of successive odd-constant multiples of the bit selector
// (as in RocksDB's FastLocalBloom, widened to 64 bits).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "seenfilter/blocked_bloom_math.h"

namespace bloomcrawl {

struct KeyHash {
  uint64_t low = 0;
  uint64_t high = 0;
};

KeyHash hash_key(std::string_view key);

namespace seenfilter {

inline uint64_t mix64(uint64_t x) {  // the murmur3 finaliser: a bijection with full avalanche
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// fastrange: floor(selector * n / 2^64), uniform over [0, n) for 64-bit n without a division.
inline uint64_t fastrange64(uint64_t selector, uint64_t n) {
  __extension__ using uint128 = unsigned __int128;  // GCC/Clang extension; pedantic otherwise
  return static_cast<uint64_t>((static_cast<uint128>(selector) * n) >> 64);
}

struct LayerSelectors {
  uint64_t block;  // picks the block
  uint64_t bits;   // picks the bits inside it
};

inline LayerSelectors layer_selectors(const KeyHash& hash, uint32_t layer_index) {
  if (layer_index == 0) return {hash.low, hash.high};
  const uint64_t salt = static_cast<uint64_t>(layer_index) * 0x9e3779b97f4a7c15ULL;
  return {mix64(hash.low + salt), mix64(hash.high ^ salt)};
}

inline uint64_t block_index(const KeyHash& hash, const LayerGeometry& layer) {
  return fastrange64(layer_selectors(hash, layer.index).block, layer.blocks);
}

// kBitMultipliers[i] = 0x9e3779b97f4a7c13^(i+1) mod 2^64: bit i is the top 9 bits of
// bit_selector * multiplier^(i+1). Precomputed powers make the k products independent (they
// pipeline) instead of a chain of k dependent multiplies; the bits are the same.
inline constexpr auto kBitMultipliers = [] {
  std::array<uint64_t, kMaxProbes> powers{};
  uint64_t p = 1;
  for (uint64_t& m : powers) m = p *= 0x9e3779b97f4a7c13ULL;
  return powers;
}();

// One key's probes into one layer: the block, and bit i (0..511) of k inside it is the top 9
// bits of bit_selector * kBitMultipliers[i]. Bits are derived where they are used, so a lookup
// needs no mask array in memory (see LayerBits::test).
struct BlockProbe {
  uint64_t block = 0;
  uint64_t bit_selector = 0;
  uint32_t probes = 0;

  uint32_t bit(uint32_t i) const { return static_cast<uint32_t>((bit_selector * kBitMultipliers[i]) >> 55); }
};

inline BlockProbe block_probe(const KeyHash& hash, const LayerGeometry& layer) {
  const LayerSelectors selectors = layer_selectors(hash, layer.index);
  return {fastrange64(selectors.block, layer.blocks), selectors.bits, layer.probes};
}

}  // namespace seenfilter
}  // namespace bloomcrawl
