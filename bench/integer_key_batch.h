// Benchmark keys: key i is the 8 bytes of the integer i, handed to the filter kBatch at a time as
// string_views into a reused buffer (so allocation never shows in the timings).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <string_view>

namespace bloomcrawl::bench {

inline constexpr size_t kBatch = 32;

// A stride coprime to `modulus` near its golden-ratio fraction, so that a spread walk's keys step
// over the whole range and never repeat within it.
inline uint64_t spread_stride(uint64_t modulus) {
  uint64_t stride = std::max<uint64_t>(static_cast<uint64_t>(static_cast<double>(modulus) * 0.6180339887), 1);
  while (std::gcd(stride, modulus) != 1) ++stride;
  return stride;
}

// The keys a benchmark walks: first, first + 1, ... or, spread, i·stride mod modulus, distinct keys
// spread evenly over [0, modulus) (a present key chosen at random, not the first ones inserted).
// A spread walk's i·stride must stay below 2^64 (4M keys over up to 10^12).
struct KeyWalk {
  uint64_t first = 0;
  uint64_t stride = 1;
  uint64_t modulus = 0;  // 0: from `first` on, one by one

  static KeyWalk from(uint64_t first) { return {.first = first}; }
  static KeyWalk spread_over(uint64_t modulus) { return {.stride = spread_stride(modulus), .modulus = modulus}; }
  uint64_t key(uint64_t i) const { return modulus == 0 ? first + i : i * stride % modulus; }
};

struct IntegerKeyBatch {
  std::array<uint64_t, kBatch> storage{};
  std::array<std::string_view, kBatch> views{};
  // The walk's keys from its index-th on.
  std::span<const std::string_view> fill(const KeyWalk& walk, uint64_t index, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      storage[i] = walk.key(index + i);
      views[i] = std::string_view(reinterpret_cast<const char*>(&storage[i]), sizeof(uint64_t));
    }
    return {views.data(), count};
  }
  std::span<const std::string_view> fill(uint64_t first, size_t count) { return fill(KeyWalk::from(first), 0, count); }
};

}  // namespace bloomcrawl::bench
