#include "seenfilter/hash_sort.h"

#include <algorithm>
#include <array>
#include <utility>

namespace bloomcrawl::seenfilter {
namespace {

constexpr uint32_t kRadixBits = 8;
constexpr size_t kBuckets = size_t{1} << kRadixBits;
// Below this many hashes the pass costs more than the comparisons it saves.
constexpr size_t kMinRadixHashes = 2048;

// Sorts hashes that agree on their bits above `shift`, by the kRadixBits below it, then each bucket.
void sort_below(std::span<uint64_t> hashes, uint32_t shift) {
  if (hashes.size() < kMinRadixHashes || shift < kRadixBits) {
    std::sort(hashes.begin(), hashes.end());
    return;
  }
  shift -= kRadixBits;
  const auto bucket_of = [shift](uint64_t hash) { return static_cast<size_t>(hash >> shift) & (kBuckets - 1); };
  std::array<size_t, kBuckets> end{};
  for (uint64_t h : hashes) ++end[bucket_of(h)];
  std::array<size_t, kBuckets> next{};  // the next unplaced slot of each bucket
  size_t total = 0;
  for (size_t b = 0; b < kBuckets; ++b) {
    next[b] = total;
    total += end[b];
    end[b] = total;
  }
  // Each bucket in turn: its next slot's hash is carried to its own bucket, displacing the hash
  // there, until one belonging here comes back. Every hash moves at most once.
  for (size_t b = 0; b < kBuckets; ++b) {
    while (next[b] < end[b]) {
      uint64_t carried = hashes[next[b]];
      for (size_t d = bucket_of(carried); d != b; d = bucket_of(carried)) std::swap(carried, hashes[next[d]++]);
      hashes[next[b]++] = carried;
    }
  }
  size_t begin = 0;
  for (size_t b = 0; b < kBuckets; ++b) {
    sort_below(hashes.subspan(begin, end[b] - begin), shift);
    begin = end[b];
  }
}

}  // namespace

void sort_hashes(std::span<uint64_t> hashes) { sort_below(hashes, 64); }

}  // namespace bloomcrawl::seenfilter
