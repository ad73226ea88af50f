// SortedFilter: a static, immutable filter over 64-bit key hashes: the keys' fingerprints sorted
// and Elias-Fano coded. Each key maps to v = fastrange64(mix64(hash ^ salt), n·2^f) for n distinct
// keys; v's high part (v >> f, one of n buckets) is coded in unary (2n bits) and its low f bits are
// packed. A lookup finds its bucket (a sampled start every kBucketsPerSample buckets, then a scan
// of at most that many bucket ends) and compares the bucket's low parts. FPR at most n/(n·2^f) =
// 2^-f, at f + 2.25 bits per key whatever n is.
//
// The compact layers use it for shards too small for a fuse filter (compact_math.h, ShardPlan):
// a fuse filter's size factor grows below ~2^13 keys, a sorted filter's bits do not, and it is
// built with little scratch beyond its keys and itself (sorted in place, or streamed with a byte
// per key more: build_streamed), so a small filter's rebuild can stay within its memory share.
// Lookups cost three dependent reads instead of four parallel ones, so large shards stay fuse
// filters.
// Build never fails on its input below 2^31 distinct keys: duplicates are removed, an empty set is
// fine. A key that was added is always found. Serialized form: docs/seenfilter.md, "Sorted filter
// file"; decode() verifies every field and the checksum.
// Thread safety: const methods may run concurrently; the filter never changes once built.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/prefetch.h"
#include "seenfilter/compact_math.h"
#include "seenfilter/key_hash.h"
#include "seenfilter/packed_bits.h"
#include "seenfilter/zero_scan.h"

namespace bloomcrawl::seenfilter {

class SortedFilter {
 public:
  static constexpr uint64_t kMaxKeys = (uint64_t{1} << 31) - 1;  // bucket starts fit 32 bits
  static constexpr uint32_t kBucketsPerSample = kSortedBucketsPerSample;

  SortedFilter() = default;  // empty: finds nothing

  // From hashes in any order, duplicates allowed. Throws std::invalid_argument for
  // fingerprint_bits outside [1, 32] or more than kMaxKeys distinct hashes.
  static SortedFilter build(std::span<const uint64_t> hashes, uint32_t fingerprint_bits);
  // As build(), with `hashes` as the build's only scratch: they are overwritten.
  static SortedFilter build_in_place(std::vector<uint64_t>& hashes, uint32_t fingerprint_bits);

  // A streamed build's input: it calls its argument with every hash, a piece at a time, and returns
  // false when it could not read them all (ShardKeyFiles::read_in_chunks over a damaged file).
  using HashSource = std::function<bool(const std::function<void(std::span<const uint64_t>)>&)>;
  // As build(), from the `count` hashes `source` streams, read twice: one pass counts them by
  // their top bits' bucket (streamed_buckets(count) of them, in `buckets`), the next puts each
  // in its bucket's place in `keys`, and each bucket (4-8 hashes) is then sorted on its own. From
  // a source other than `keys` that is faster than sorting in place (American-flag passes carry
  // each hash to its bucket through a chain of dependent swaps), for `buckets` as the only
  // scratch beyond the keys and the source's own: a byte per key. nullopt when `source` fails or
  // does not stream `count` hashes; throws as build() does, and std::invalid_argument for a count
  // over 2^32 - 1.
  static std::optional<SortedFilter> build_streamed(uint64_t count, uint32_t fingerprint_bits, const HashSource& source,
                                                    std::vector<uint64_t>& keys, std::vector<uint32_t>& buckets);
  static uint64_t streamed_buckets(uint64_t count);  // at most count / 4

  // What contains() and prefetch() read, copied out of the filter, as FuseFilter::Lookup is: a
  // table of these (compact_layers.cc) reaches the arrays with one dependent load, the table's
  // entry. Valid while the filter lives: its arrays never move once built.
  //
  // A probe first maps the hash to its value (value_of: two multiplications and a mix), then reads
  // the filter. prefetch() returns the value, so that a window of probes that prefetches every
  // key before testing it computes each value once: contains_value() takes it.
  struct Lookup {
    const uint64_t* high = nullptr;
    const uint64_t* low = nullptr;
    const uint32_t* samples = nullptr;
    uint64_t high_words = 0;  // in memory, padding included
    uint64_t keys = 0;
    uint64_t low_mask = 1;
    uint32_t fingerprint_bits = 1;

    uint64_t value_of(uint64_t hash) const { return fastrange64(mixed(hash), keys << fingerprint_bits); }
    bool contains(uint64_t hash) const { return keys != 0 && contains_value(value_of(hash)); }
    // The lines the bucket's unary bits and first low part are likely in. The samples are few (4
    // bytes per 128 keys) and read by every lookup, so the sample is read here, from the caches:
    // past it the bucket starts near 2·(bucket - the sample's bucket) bits on, and its keys near
    // bucket - the sample's bucket low parts on (off by the keys' random walk over under 128
    // buckets, a word or so). Estimated from the bucket alone, both would be off by the walk over
    // all buckets before it: kilobytes into a filter of 100k keys. Returns value_of(hash).
    uint64_t prefetch(uint64_t hash) const {
      if (keys == 0) return 0;
      const uint64_t v = value_of(hash);
      const uint64_t bucket = v >> fingerprint_bits;
      const uint64_t group = bucket / kBucketsPerSample;
      const uint64_t within = bucket % kBucketsPerSample;
      const uint64_t sample = samples[group];
      prefetch_for_read(&high[std::min<uint64_t>((sample + 2 * within) / 64, high_words - 1)]);
      const uint64_t first_key = sample - group * kBucketsPerSample + within;
      prefetch_for_read(&low[std::min<uint64_t>(first_key, keys - 1) * fingerprint_bits / 64]);
      return v;
    }
    // Whether value `v` (value_of a hash) is in the filter; false for an empty one.
    bool contains_value(uint64_t v) const {
      if (keys == 0) return false;
      const uint64_t bucket = v >> fingerprint_bits;
      const uint64_t at = pass_zeros(high, samples[bucket / kBucketsPerSample], bucket % kBucketsPerSample);
      const uint64_t index = at - bucket;  // the bucket's first key
      // The bucket's keys are the ones from `at` on. It holds one key on average (Poisson), so a
      // loop over them ends at a branch the predictor misses: the first two are compared without
      // branches, the rest (8% of buckets) in a loop.
      const uint64_t shift = at % 64;
      const uint64_t next = shift == 0 ? 0 : high[at / 64 + 1] << (64 - shift);
      auto size = static_cast<uint64_t>(std::countr_one((high[at / 64] >> shift) | next));
      // A bucket of 64 keys or more (hashes chosen to collide make one): the rest of its run.
      if (size == 64) [[unlikely]] {
        while ((high[(at + size) / 64] >> ((at + size) % 64)) & 1) ++size;
      }
      const uint64_t low_part = v & low_mask;
      const uint64_t first = read_packed(low, index, fingerprint_bits, low_mask);
      const uint64_t second = read_packed(low, std::min(index + 1, keys - 1), fingerprint_bits, low_mask);
      bool found = (size > 0 && first == low_part) | (size > 1 && second == low_part);
      for (uint64_t i = 2; i < size; ++i) found |= read_packed(low, index + i, fingerprint_bits, low_mask) == low_part;
      return found;
    }
  };
  Lookup lookup() const {
    return {.high = high_.data(),
            .low = low_.data(),
            .samples = samples_.data(),
            .high_words = high_.size(),
            .keys = keys_,
            .low_mask = low_mask_,
            .fingerprint_bits = fingerprint_bits_};
  }
  bool contains(uint64_t hash) const { return lookup().contains(hash); }
  void prefetch(uint64_t hash) const { lookup().prefetch(hash); }

  // The bucket `hash` falls in, in a filter of `keys` distinct keys at `fingerprint_bits` (tests
  // make buckets of chosen sizes with it, as an adversary who knows the hash could).
  static uint64_t bucket_of(uint64_t hash, uint64_t keys, uint32_t fingerprint_bits) {
    return fastrange64(mixed(hash), keys << fingerprint_bits) >> fingerprint_bits;
  }

  uint32_t fingerprint_bits() const { return fingerprint_bits_; }
  uint64_t keys() const { return keys_; }  // distinct keys
  uint64_t bytes() const;                  // of its arrays (the filter's memory)
  double bits_per_key() const;

  // The serialized filter (docs/seenfilter.md, "Sorted filter file").
  std::string encode() const;
  // True when `in` starts with a sorted filter file's magic.
  static bool is_sorted_file(std::string_view in);
  // Throws CheckpointError naming `file` when the bytes are not a valid sorted filter file.
  static SortedFilter decode(std::string_view in, const std::string& file);

 private:
  // The order keys are stored in: mix64 is a bijection, so distinct hashes stay distinct, and
  // value_of grows with it.
  static uint64_t mixed(uint64_t hash) { return mix64(hash ^ 0x2545f4914f6cdd1dULL); }
  static void check_fingerprint_bits(uint32_t fingerprint_bits);
  // From the keys' mixed hashes, sorted, duplicates removed.
  static SortedFilter from_sorted(std::span<const uint64_t> mixed_hashes, uint32_t fingerprint_bits);
  bool bit(uint64_t at) const { return (high_[at / 64] >> (at % 64)) & 1; }

  uint32_t fingerprint_bits_ = 1;
  uint64_t low_mask_ = 1;
  uint64_t keys_ = 0;
  std::vector<uint64_t> high_;     // unary: per bucket, a one per key, then a zero; + a padding word
  std::vector<uint64_t> low_;      // packed low parts in key order (packed_bits.h)
  std::vector<uint32_t> samples_;  // the start of every kBucketsPerSample-th bucket
};

}  // namespace bloomcrawl::seenfilter
