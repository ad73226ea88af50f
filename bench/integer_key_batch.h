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

struct IntegerKeyBatch {
  std::array<uint64_t, kBatch> storage{};
  std::array<std::string_view, kBatch> views{};
  std::span<const std::string_view> fill(uint64_t first, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      storage[i] = first + i;
      views[i] = std::string_view(reinterpret_cast<const char*>(&storage[i]), sizeof(uint64_t));
    }
    return {views.data(), count};
  }
  // The index-th key of fill_spread's walk.
  static uint64_t spread_key(uint64_t index, uint64_t stride, uint64_t modulus) { return index * stride % modulus; }
  // Keys (first + i)·stride mod modulus for i < count: with stride coprime to modulus, a walk over
  // distinct keys spread evenly over [0, modulus) (spread_stride). (first + count)·modulus must
  // stay below 2^64 (4M keys over up to 10^12).
  std::span<const std::string_view> fill_spread(uint64_t first, size_t count, uint64_t stride, uint64_t modulus) {
    for (size_t i = 0; i < count; ++i) {
      storage[i] = spread_key(first + i, stride, modulus);
      views[i] = std::string_view(reinterpret_cast<const char*>(&storage[i]), sizeof(uint64_t));
    }
    return {views.data(), count};
  }
};

// A stride coprime to `modulus` near its golden-ratio fraction, so that fill_spread's keys step
// over the whole range and never repeat within it.
inline uint64_t spread_stride(uint64_t modulus) {
  uint64_t stride = std::max<uint64_t>(static_cast<uint64_t>(static_cast<double>(modulus) * 0.6180339887), 1);
  while (std::gcd(stride, modulus) != 1) ++stride;
  return stride;
}

}  // namespace bloomcrawl::bench
