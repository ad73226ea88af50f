// sort_hashes: sorts 64-bit hashes in place, no memory beyond two fixed tables per pass on the
// stack. The static filters sort mixed hashes, which are uniform: American-flag passes (McIlroy,
// Bostic and McIlroy, "Engineering radix sort", 1993) on the top bits split them into buckets,
// 256 per pass, each bucket then split again until buckets of a few hashes are left to an
// insertion sort. A sorted filter's build spent most of its time in std::sort (bench/results/
// compact-filter.md, "Sixth stop"), then in std::sort of the 2048-hash buckets the passes left:
// ending in passes sized to the bucket is 1.5-2.7x faster than that from 1k to 80k hashes (the
// shards of small filters) and 10% at 1M (docs/seenfilter.md, "Seventh stop").
//
// Contract: the same result as std::sort on any input (skewed input is only slower).
#pragma once

#include <cstdint>
#include <span>

namespace bloomcrawl::seenfilter {

void sort_hashes(std::span<uint64_t> hashes);

}  // namespace bloomcrawl::seenfilter
