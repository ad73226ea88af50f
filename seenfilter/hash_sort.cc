#include "seenfilter/hash_sort.h"

#include <algorithm>
#include <array>
#include <bit>
#include <utility>

namespace bloomcrawl::seenfilter {
namespace {

constexpr uint32_t kMaxRadixBits = 8;
// Below this many hashes an insertion sort is cheaper than another pass's two 2^bits tables.
constexpr size_t kInsertionSortBelow = 32;

void insertion_sort(std::span<uint64_t> hashes) {
  for (size_t i = 1; i < hashes.size(); ++i) {
    const uint64_t h = hashes[i];
    size_t at = i;
    for (; at > 0 && hashes[at - 1] > h; --at) hashes[at] = hashes[at - 1];
    hashes[at] = h;
  }
}

// Sorts hashes that agree on their bits above `shift`: a pass on the next bits, as many as give
// buckets of about 4 hashes (at most kMaxRadixBits), then each bucket. Uniform hashes so reach
// buckets an insertion sort finishes in a pass or two; skewed ones only take more passes, at most
// 64 / 3 (shift falls by at least 3 bits per pass), and at shift 0 a bucket's hashes are equal.
void sort_below(std::span<uint64_t> hashes, uint32_t shift) {
  if (hashes.size() < kInsertionSortBelow || shift == 0) {
    insertion_sort(hashes);
    return;
  }
  const uint32_t bits = std::min({kMaxRadixBits, static_cast<uint32_t>(std::bit_width(hashes.size())) - 3, shift});
  shift -= bits;
  const size_t buckets = size_t{1} << bits;
  const auto bucket_of = [shift, buckets](uint64_t hash) { return static_cast<size_t>(hash >> shift) & (buckets - 1); };
  // Only the first `buckets` entries are used (and zeroed: a small pass must not pay for 256).
  std::array<size_t, size_t{1} << kMaxRadixBits> end;   // NOLINT(cppcoreguidelines-pro-type-member-init)
  std::array<size_t, size_t{1} << kMaxRadixBits> next;  // NOLINT(cppcoreguidelines-pro-type-member-init)
  std::fill_n(end.begin(), buckets, 0);
  for (uint64_t h : hashes) ++end[bucket_of(h)];
  size_t total = 0;
  for (size_t b = 0; b < buckets; ++b) {
    next[b] = total;
    total += end[b];
    end[b] = total;
  }
  // Each bucket in turn: its next slot's hash is carried to its own bucket, displacing the hash
  // there, until one belonging here comes back. Every hash moves at most once.
  for (size_t b = 0; b < buckets; ++b) {
    while (next[b] < end[b]) {
      uint64_t carried = hashes[next[b]];
      for (size_t d = bucket_of(carried); d != b; d = bucket_of(carried)) std::swap(carried, hashes[next[d]++]);
      hashes[next[b]++] = carried;
    }
  }
  size_t begin = 0;
  for (size_t b = 0; b < buckets; ++b) {
    sort_below(hashes.subspan(begin, end[b] - begin), shift);
    begin = end[b];
  }
}

}  // namespace

void sort_hashes(std::span<uint64_t> hashes) { sort_below(hashes, 64); }

}  // namespace bloomcrawl::seenfilter
