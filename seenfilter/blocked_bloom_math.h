// False-positive arithmetic of a blocked Bloom filter with 512-bit (one cache line) blocks.
//
// A key's k probes all fall in one block chosen uniformly, so block loads are Poisson with mean
// lambda = keys / blocks, and the FPR is the Poisson mixture
//   FPR(lambda, k) = sum_j Pois(j; lambda) * E[(S_j / 512)^k],
// S_j being the set bits of a block after j*k uniform bit choices (its exact distribution, not
// its mean: see blocked_bloom_math.cc). This is higher than the classic (1 - e^(-kn/m))^k at the
// same bits/key (the blocking penalty).
// size_layer() picks the fewest blocks (and best k) whose FPR at full capacity meets a target.
// See docs/seenfilter.md for the derivation and the defaults.
#pragma once

#include <cstdint>

namespace bloomcrawl::seenfilter {

inline constexpr uint32_t kBlockBits = 512;
inline constexpr uint32_t kBlockWords = kBlockBits / 64;
inline constexpr uint32_t kBlockBytes = kBlockBits / 8;
inline constexpr uint32_t kMaxProbes = 32;
// Past this a layer costs more than a hash set of its keys would; the target is then "unreachable".
inline constexpr double kMaxBitsPerKey = 128.0;

// Expected FPR of one blocked layer holding `keys_per_block` keys per block on average.
double blocked_fpr(double keys_per_block, uint32_t probes);

// The probe count minimising blocked_fpr at this load.
uint32_t best_probes(double keys_per_block);

struct LayerGeometry {
  uint32_t index = 0;     // position in the filter; salts the probe derivation
  uint64_t capacity = 0;  // keys the layer accepts before it is sealed
  uint64_t blocks = 0;    // 64-byte blocks
  uint32_t probes = 0;    // bits set per key, all inside one block

  uint64_t bytes() const { return blocks * kBlockBytes; }
  double bits_per_key() const { return static_cast<double>(bytes()) * 8.0 / static_cast<double>(capacity); }
};

// Layers are sized for this fraction of their target: the model is exact for independent bit
// choices, and the 1% headroom keeps a layer's *measured* FPR under its target despite the
// sampling spread of one filter's block loads (about 0.3% at 10M keys), for 0.015 bits/key.
inline constexpr double kSizingHeadroom = 0.99;

// The smallest layer of `capacity` keys whose FPR at capacity is <= kSizingHeadroom * target_fpr, or
// blocks == 0 when that would take more than kMaxBitsPerKey bits per key.
LayerGeometry size_layer(uint32_t index, uint64_t capacity, double target_fpr);

}  // namespace bloomcrawl::seenfilter
