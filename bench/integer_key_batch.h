// Benchmark keys: key i is the 8 bytes of the integer i, handed to the filter kBatch at a time as
// string_views into a reused buffer (so allocation never shows in the timings).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
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
};

}  // namespace bloomcrawl::bench
