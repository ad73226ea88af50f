// sort_hashes: sorts 64-bit hashes in place, no memory beyond a fixed table on the stack. The
// static filters sort mixed hashes, which are uniform: one American-flag pass (McIlroy, Bostic and
// McIlroy, "Engineering radix sort", 1993) on the top 8 bits splits them into 256 buckets of
// about n/256, each then sorted alone. It saves std::sort the 8 levels of comparisons the pass
// replaces, and its buckets are cache-sized: a sorted filter's build spent most of its time in
// std::sort (bench/results/compact-filter.md, "Sixth stop").
//
// Contract: the same result as std::sort on any input (skewed input is only slower).
#pragma once

#include <cstdint>
#include <span>

namespace bloomcrawl::seenfilter {

void sort_hashes(std::span<uint64_t> hashes);

}  // namespace bloomcrawl::seenfilter
