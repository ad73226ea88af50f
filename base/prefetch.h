// Prefetch hints that the compiler keeps.
//
// __builtin_prefetch alone is not enough: GCC 12's IPA pure-const pass takes a function whose only
// effect is a prefetch for side-effect free, and deletes every call to it (its result is unused).
// It deleted FuseFilter::prefetch and the compact seen filter's shard_prefetch, so no fuse cell was
// ever prefetched: each batch waited on those misses one probe after another. The empty volatile
// asm below is an effect the pass must keep. tests/tooling/prefetch_codegen_test.sh checks the
// built library still prefetches the fuse cells.
#pragma once

namespace bloomcrawl {

// Hints that the cache line holding `p` will be read soon.
inline void prefetch_for_read(const void* p) {
  __builtin_prefetch(p, 0);
  asm volatile("" : : "r"(p));
}

// Hints that the cache line holding `p` will be written soon.
inline void prefetch_for_write(const void* p) {
  __builtin_prefetch(p, 1);
  asm volatile("" : : "r"(p));
}

}  // namespace bloomcrawl
