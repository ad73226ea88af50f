// The arithmetic of the compact seen filter (a static binary fuse filter built from the hash log,
// beside one active blocked Bloom layer), kept apart from the mechanism as RocksDB keeps
// bloom_impl.h apart from its filter builders. Pure functions; docs/seenfilter.md derives them.
//
// - A 3-wise binary fuse filter with f-bit fingerprints answers "present" for an absent key when
//   the XOR of three cells equals the key's fingerprint: probability 2^-f, whatever the load.
// - Lookups test the active layer and the compact filter, so by the union bound the filter's FPR
//   is at most the Bloom layers' shares + 2^-f. split_fpr_budget() picks f (the Bloom layers share
//   target - 2^-f) minimising the bits per key at the peak of a rebuild cycle (peak_bits_per_key).
// - A rebuild holds one partition of the hash space in scratch memory at a time; partitions are
//   sized so that scratch stays within kRebuildMemoryShare of the filter's own bytes.
#pragma once

#include <cstdint>

namespace bloomcrawl::seenfilter {

inline constexpr uint32_t kMinFingerprintBits = 1;
inline constexpr uint32_t kMaxFingerprintBits = 32;

// FPR of a binary fuse filter with `bits`-bit fingerprints.
double fuse_fpr(uint32_t fingerprint_bits);
// The fewest fingerprint bits whose FPR is <= fpr (kMaxFingerprintBits + 1 if none is).
uint32_t fingerprint_bits_for(double fpr);

// The arity of fuse filters by default and of the big level: 4 cells per key (Graf and Lemire's
// 4-wise binary fuse) rather than 3. At the shard sizes of a rebuild (2^13-2^18 keys) its size
// factor is 1.10-1.22 against 1.15-1.26, with segments small enough that rounding to whole
// segments costs <1% (3-wise: up to 3%): about 1.3 bits per key less at f = 21, and shards can be
// 4x smaller for the same bits. A lookup reads one more cell (docs/seenfilter.md, "Four cells per
// key"; runs stay 3-wise: compact_layers.h, kRunArity), and so does every insert.
inline constexpr uint32_t kFuseArity = 4;
// A big level of at least this many keys (~100 MB at 4-wise, past most servers' last-level cache)
// is built 3-wise: there each cell a lookup or an insert reads is a line from DRAM, and the fourth
// costs more than its 1.25 bits per key are worth. Measured in lockstep at 100k -> 100M
// (docs/seenfilter.md, "Three cells per key past 2^25 keys"; nine runs against six, alternating):
// 3-wise, misses 0.92-1.04x the layered filter's time against 1.05-1.08x, hits 0.85-0.99x against
// 1.00-1.05x, inserts 1.46-1.61x against 1.54-1.67x (0.02-0.09 lower in each alternated pair), for
// 27.41 bits per key at the end against 26.16. At 10M keys, where the level is in the cache, the
// two arities' lookups and inserts are within the noise of each other, and 4-wise keeps 1.2 bits
// per key (and the worst of the growth) lower.
inline constexpr uint64_t kThreeWiseBigLevelKeys = uint64_t{1} << 25;
// The arity a merge builds a big level of `keys` keys with: kFuseArity, or 3 from
// kThreeWiseBigLevelKeys on.
uint32_t big_level_arity(uint64_t keys);

// Binary fuse geometry for `keys` distinct keys at `arity` 3 or 4 (Graf and Lemire, "Binary Fuse
// Filters", 2022): the segment length (a power of two <= 2^18) and the cell count.
struct FuseGeometry {
  uint32_t segment_length = 0;
  uint32_t segment_count = 0;  // segments a key's first cell may fall in
  uint64_t cells = 0;          // (segment_count + arity - 1) * segment_length
};
FuseGeometry fuse_geometry(uint64_t keys, uint32_t arity = kFuseArity);
// Cells per key of a fuse filter of `keys` keys (the size factor: 1.125 for large 3-wise filters,
// 1.075 for 4-wise ones; more for small ones).
double fuse_cells_per_key(uint64_t keys, uint32_t arity = kFuseArity);

// Bits per key at the peak of a one-level rebuild cycle, per key held: the moment the rebuild
// switches its last shard, the compact layer already holding the frozen keys too, the frozen layer
// not yet dropped and the new active layer allocated and empty:
//   c + b·a/(1 + a) + b·a
// with c the compact layer's bits per key, b a Bloom layer's bits per key of capacity and a the
// active ratio (the frozen layer holds a/(1 + a) of the keys, the new active one is sized a·keys).
double peak_bits_per_key(double compact_bits_per_key, double bloom_bits_per_key, double active_ratio);
// Keys a rebuild reads and builds per key inserted: every rebuild reads all (1 + a) of them, and
// one happens per a of new keys.
double rebuilt_keys_per_insert(double active_ratio);

// How the target is shared between the compact filter and the two Bloom layers that can exist at
// once (the active one and, during a rebuild, the frozen one).
struct FprBudget {
  uint32_t fingerprint_bits = 0;  // compact filter's FPR is 2^-fingerprint_bits
  double compact_fpr = 0;
  double active_fpr = 0;         // target - compact_fpr: both Bloom layers together
  double bloom_layer_fpr = 0;    // active_fpr / 2: each Bloom layer's sizing target
  double peak_bits_per_key = 0;  // peak_bits_per_key() at the size factor 1.125 (large shards)
};

// The split for `target_fpr` when the active layer holds active_ratio keys per compact key: the f
// minimising peak_bits_per_key. fingerprint_bits = 0 when no split reaches the target within
// kMaxFingerprintBits.
FprBudget split_fpr_budget(double target_fpr, double active_ratio);

// Tiered compaction (docs/seenfilter.md, "Two levels, tiered"): the compact part is a *big level*
// and up to max_runs() small *runs*, each a static fuse filter. A seal builds the frozen layer's
// keys into a run, alone or, when the last run holds one seal's keys, with them into a pair that
// replaces it (1.5 keys rebuilt per insert), unless the runs and the frozen keys would then hold
// more than merge_ratio of the big level's keys (or the runs be more than max_runs()): then it
// merges the big level, the runs and the frozen keys into a new big level ((1 + r)/r keys per insert).
// Lookups test the big level, every run and the Bloom layers, so the union bound is
//   2^-f_big + max_runs · 2^-f_run + 2 · bloom share.
inline constexpr double kTieredActiveRatio = 1.0 / 20;  // a: active keys per key held at a seal
// Every active layer, the first included, holds max(min(initial_capacity, this), a·keys) keys.
// The floor was initial_capacity, then 4096 keys: a first layer of initial_capacity keys is a
// Bloom layer at 47 bits per key, held beside the new active layer until its merge ends (49-54
// bits per key right after the first seal), and a floor of 4096 keys holds a above 1/20 until 82k
// keys. At 512 keys a is 1/20 from 10k keys on, and a job (files, a thread, no fsync) still costs
// little beside the keys it builds (A/B at 10k -> 1M, docs/seenfilter.md "Active layer floor"):
// so the initial capacity of a compact filter only caps its first layer.
inline constexpr uint64_t kMinActiveKeys = uint64_t{1} << 9;
inline constexpr double kMergeRatio = 1.0 / 3;  // r: runs' keys per big-level key before a merge
// The most runs a filter or its manifest may have (max_runs() of the chosen ratios is 3; it was 6
// before runs were built in pairs, and such checkpoints still load).
inline constexpr uint32_t kMaxRuns = 16;
// Cells per key of the shards the budget is sized for (4-wise shards of 2^14-2^17 keys: 1.12-1.18,
// as 3-wise ones of 2^15-2^17 keys were).
inline constexpr double kShardSizeFactor = 1.18;

// The most seals between two merges: each freezes at least active_ratio/(1 + active_ratio) of the
// keys... precisely, k seals after a merge hold at least big·((1 + a)^k - 1) keys, so the runs pass
// merge_ratio of the big level after ceil(ln(1 + r) / ln(1 + a)) of them.
uint32_t max_seals_per_merge(double active_ratio, double merge_ratio);
// The most runs at once: the seals' keys built in pairs (a run of one seal is rebuilt with the
// next seal's keys in its place), so half the seals, rounded up.
uint32_t max_runs(double active_ratio, double merge_ratio);
// Bits per key at the peak of a tiered cycle, per key held: the larger of the end of a run's build
// (the runs at their most, r/(1 + r) of the keys, the frozen layer not yet dropped and the new
// active layer allocated) and the end of a merge (all keys in the big level, frozen and new active
// layers as before: peak_bits_per_key at the big level's bits).
double tiered_peak_bits_per_key(double big_bits_per_key, double run_bits_per_key, double bloom_bits_per_key,
                                double active_ratio, double merge_ratio);
// Keys read and built per key inserted, at most: each key is built once into a run, half of them
// twice (a run of one seal is rebuilt into a pair), and a merge reads all (1 + r) per r of new keys.
double tiered_rebuilt_keys_per_insert(double merge_ratio);

struct TieredBudget {
  uint32_t big_fingerprint_bits = 0;  // 0: no split reaches the target
  uint32_t run_fingerprint_bits = 0;
  uint32_t max_runs = 0;
  double big_fpr = 0;
  double run_fpr = 0;          // each run's
  double bloom_layer_fpr = 0;  // each of the (at most two) Bloom layers'
  double peak_bits_per_key = 0;
};
// The f_big and f_run (f_run >= f_big) minimising tiered_peak_bits_per_key at kShardSizeFactor,
// the two Bloom layers sharing what the big level and max_runs runs leave of the target.
TieredBudget split_tiered_budget(double target_fpr, double active_ratio, double merge_ratio);

// Scratch memory of a rebuild, relative to the filter it builds: at most this share.
inline constexpr double kRebuildMemoryShare = 0.10;
// Scratch bytes per key of one partition's build (see FuseBuilder in fuse_filter.cc): the keys (8)
// and per cell a count (1), an XOR of hashes that later holds the cell's value (8) and a slot of
// the peeling stack (4), at 1.125 cells per key and up to 1.2 for small partitions.
inline constexpr double kBuildBytesPerKey = 8.0 + 13.0 * 1.2;
// Bytes a compaction job holds per key of the shard it builds: the build (kBuildBytesPerKey) and
// the new shard (at most 1.2 cells of 32 bits per key).
inline constexpr double kJobBytesPerShardKey = kBuildBytesPerKey + 1.2 * 32 / 8;
// Below this many keys a partition's size factor grows (1.18 at 2^16, 1.28 at 2^12): partitions
// are never made smaller, which only matters while the filter's bytes are a few MB.
inline constexpr uint64_t kMinPartitionKeys = uint64_t{1} << 16;

// A sorted filter (sorted_filter.h) samples every this many buckets' start (32 bits each).
inline constexpr uint32_t kSortedBucketsPerSample = 128;
// A sorted filter's bits per key, padding aside: f low bits, 2 in unary, the samples' share.
double sorted_bits_per_key(uint32_t fingerprint_bits);
// Bytes a compaction job holds per key of a sorted shard it builds: the keys (8), its streamed
// build's bucket table and read chunk (at most 1 each: SortedFilter::build_streamed) and the new
// shard (sorted_bits_per_key, rounded up to whole bits).
double sorted_job_bytes_per_key(uint32_t fingerprint_bits);
// A sorted shard holds at least this many keys (512 bytes of them): below it a job's fixed costs
// (a key file per shard, a page of page cache each) outweigh the keys it builds. With it a job is
// within the share from a filter of about 20 KB (bench/results/compact-filter.md).
inline constexpr uint64_t kMinSortedShardKeys = uint64_t{1} << 6;

// How a job splits `keys` keys into shards, and of which kind.
struct ShardPlan {
  uint32_t bits = 0;    // 2^bits shards by the log hash's top bits
  bool sorted = false;  // SortedFilter shards; FuseFilter shards otherwise
};
// The shards of a job building `keys` keys when the filter holds `filter_keys` keys, its memory
// counted at its big level's bytes alone (filter_keys · kShardSizeFactor · fingerprint_bits / 8,
// less than the whole filter): the fewest fuse shards (at least 2^min_bits, at most 2^max_bits)
// whose build (kJobBytesPerShardKey per key, the largest shard 10% above the average) stays
// within kRebuildMemoryShare of it, none smaller than min_fuse_shard_keys, since a fuse filter's
// size factor grows below that. When even those are over the share (a filter of a few MB), the
// fewest sorted shards within it instead, none smaller than kMinSortedShardKeys: a sorted shard
// needs a third of the memory per key and its bits per key do not grow as it shrinks
// (docs/seenfilter.md, "Shards, and the memory bound").
ShardPlan plan_shards(uint64_t keys, uint64_t filter_keys, uint32_t fingerprint_bits, uint64_t min_fuse_shard_keys,
                      uint32_t min_bits, uint32_t max_bits);

// log2 of the partition count for a compact filter of `keys` keys at `fingerprint_bits`: the
// smallest power of two whose average partition's scratch is within kRebuildMemoryShare of the
// whole filter's bytes, unless that would push partitions below kMinPartitionKeys. At most 16.
uint32_t partition_bits_for(uint64_t keys, uint32_t fingerprint_bits);

}  // namespace bloomcrawl::seenfilter
