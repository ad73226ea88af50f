// FuseFilter: a static, immutable filter over 64-bit key hashes: a partitioned 4-wise (or, read
// from an older file, 3-wise) binary fuse filter (Graf and Lemire, "Binary Fuse Filters: Fast and
// Smaller Than Xor Filters", 2022) with f-bit fingerprints packed end to end, FPR 2^-f
// (compact_math.h), about 1.075-1.2 f bits per key (1.125-1.26 at arity 3).
//
// The hash space is split into 2^partition_bits partitions by the hash's top bits; each is an
// independent fuse filter over the keys that fall in it, with its own seed. A build adds the
// partitions one at a time in order (FuseFilterBuilder), so its scratch memory is that of one
// partition (compact_math.h, partition_bits_for), not of the whole key set.
// Build never fails on its input: duplicates are removed, an empty or one-key set is fine. A key
// that was added is always found (no false negatives). Serialized form: docs/seenfilter.md,
// "Compact filter file"; decode() verifies every field and the checksum.
// Thread safety: const methods may run concurrently; the filter never changes once built.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/prefetch.h"
#include "seenfilter/compact_math.h"
#include "seenfilter/key_hash.h"
#include "seenfilter/packed_bits.h"

namespace bloomcrawl::seenfilter {

class FuseFilter {
 public:
  struct Partition {
    uint64_t seed = 0;
    uint64_t first_cell = 0;      // index of its first cell in the packed array
    uint64_t keys = 0;            // distinct keys it holds
    uint32_t segment_length = 0;  // 0: empty partition (no cells)
    uint32_t segment_count = 0;
    uint64_t cells(uint32_t arity) const {
      return segment_length == 0 ? 0 : (uint64_t{segment_count} + arity - 1) * segment_length;
    }
  };

  FuseFilter() = default;  // empty: finds nothing

  // Builds from hashes in any order (duplicates allowed), partitioned per compact_math.h.
  static FuseFilter build(std::span<const uint64_t> hashes, uint32_t fingerprint_bits, uint32_t arity = kFuseArity);

  // What contains() and prefetch() read, copied out of the filter: a table of these
  // (compact_layers.cc) reaches a key's cells with one dependent load, the table's entry, instead
  // of three (the filter object, its partition table, then the cells). Valid while the filter
  // lives: its cells and partitions never move once built.
  struct Lookup {
    const uint64_t* words = nullptr;
    const Partition* partitions = nullptr;
    Partition only;  // partitions[0] when partition_bits is 0: one dependent load less
    uint64_t cell_mask = 0;
    uint32_t fingerprint_bits = 0;
    uint32_t partition_bits = 0;
    uint32_t arity = 0;

    const Partition& partition(uint64_t hash) const {
      return partition_bits == 0 ? only : partitions[hash >> (64 - partition_bits)];
    }
    bool contains(uint64_t hash) const {
      const Partition& p = partition(hash);
      if (p.segment_length == 0) return false;
      const uint64_t h = mix64(hash + p.seed);
      const Cells c = cells_of(h, p);
      uint64_t x = fingerprint_of(h, fingerprint_bits) ^ cell(c.at[0]) ^ cell(c.at[1]) ^ cell(c.at[2]);
      if (arity == 4) x ^= cell(c.at[3]);
      return x == 0;
    }
    void prefetch(uint64_t hash) const {
      const Partition& p = partition(hash);
      if (p.segment_length == 0) return;
      const Cells c = cells_of(mix64(hash + p.seed), p);
      const auto* bytes = reinterpret_cast<const uint8_t*>(words);
      for (uint32_t j = 0; j < arity; ++j) prefetch_for_read(bytes + c.at[j] * fingerprint_bits / 8);
    }
    uint64_t cell(uint64_t index) const { return read_packed(words, index, fingerprint_bits, cell_mask); }
  };
  Lookup lookup() const {
    return {.words = words_.data(),
            .partitions = partitions_.data(),
            .only = partitions_.front(),
            .cell_mask = cell_mask_,
            .fingerprint_bits = fingerprint_bits_,
            .partition_bits = partition_bits_,
            .arity = arity_};
  }
  bool contains(uint64_t hash) const { return lookup().contains(hash); }
  void prefetch(uint64_t hash) const { lookup().prefetch(hash); }

  uint32_t arity() const { return arity_; }  // cells per key: 3 or 4
  uint32_t fingerprint_bits() const { return fingerprint_bits_; }
  uint32_t partition_bits() const { return partition_bits_; }
  uint64_t keys() const { return keys_; }  // distinct keys
  uint64_t cells() const { return cells_; }
  uint64_t bytes() const;  // of the cells (the filter's memory, tables aside)
  const std::vector<Partition>& partitions() const { return partitions_; }
  double bits_per_key() const;

  // The serialized filter (docs/seenfilter.md, "Compact filter file").
  std::string encode() const;
  // Throws CheckpointError naming `file` when the bytes are not a valid compact filter file.
  static FuseFilter decode(std::string_view in, const std::string& file);

 private:
  friend class FuseFilterBuilder;
  struct Cells {
    uint64_t at[4];  // the key's cells; the fourth only at arity 4 (it may be past a 3-wise partition)
  };

  size_t partition_of(uint64_t hash) const { return partition_bits_ == 0 ? 0 : hash >> (64 - partition_bits_); }
  static Cells cells_of(uint64_t h, const Partition& p) {
    const uint64_t mask = p.segment_length - 1;
    const uint64_t c0 = fastrange64(h, uint64_t{p.segment_count} * p.segment_length);
    const uint64_t c1 = (c0 + p.segment_length) ^ ((h >> 18) & mask);
    const uint64_t c2 = (c0 + 2 * uint64_t{p.segment_length}) ^ (h & mask);
    const uint64_t c3 = (c0 + 3 * uint64_t{p.segment_length}) ^ ((h >> 36) & mask);
    return {{p.first_cell + c0, p.first_cell + c1, p.first_cell + c2, p.first_cell + c3}};
  }
  // Independent of the cell positions (a separate mix), so an absent key's fingerprint is not
  // a function of the cells it reads.
  static uint64_t fingerprint_of(uint64_t h, uint32_t fingerprint_bits) {
    return mix64(h ^ 0x5851f42d4c957f2dULL) >> (64 - fingerprint_bits);
  }
  uint64_t fingerprint(uint64_t h) const { return fingerprint_of(h, fingerprint_bits_); }

  uint32_t arity_ = kFuseArity;
  uint32_t fingerprint_bits_ = 8;
  uint32_t partition_bits_ = 0;
  uint64_t cell_mask_ = 0xff;
  uint64_t keys_ = 0;
  uint64_t cells_ = 0;
  std::vector<Partition> partitions_{Partition{}};
  std::vector<uint64_t> words_ = std::vector<uint64_t>(1);  // the cells, plus one word of padding
};

// The working memory of partition builds, kept between builds: a rebuild that builds shard after
// shard reuses it instead of allocating (and faulting in) fresh pages for each.
struct FuseBuildScratch {
  std::vector<uint8_t> count;     // per cell: keys in it << 2 | XOR of their position numbers
  std::vector<uint64_t> xored;    // per cell: XOR of the hashes of the keys in it; later its value
  std::vector<uint32_t> stack;    // per cell: cells to peel, and the cells peeled in order
  std::vector<uint64_t> grouped;  // add_all: the hashes grouped by partition
  std::vector<uint64_t> part;     // add_all: one partition's hashes
  uint64_t bytes() const {
    return count.capacity() + xored.capacity() * 8 + stack.capacity() * 4 + (grouped.capacity() + part.capacity()) * 8;
  }
};

// Builds a FuseFilter partition by partition: add_partition(0), (1), ... (2^partition_bits - 1),
// each with exactly the hashes whose top partition_bits bits are its index, then finish().
class FuseFilterBuilder {
 public:
  // expected_keys sizes the packed array up front (it grows if exceeded) and, with
  // fingerprint_bits, the partition count (partition_bits_for). `scratch`, when given, is the
  // working memory to use (and keep for the next builder); it must outlive the builder. `arity`
  // is 3 or 4 (kFuseArity; runs are built 3-wise: compact_layers.h, kRunArity).
  FuseFilterBuilder(uint64_t expected_keys, uint32_t fingerprint_bits);
  FuseFilterBuilder(uint64_t expected_keys, uint32_t fingerprint_bits, uint32_t partition_bits,
                    FuseBuildScratch* scratch = nullptr, uint32_t arity = kFuseArity);
  FuseFilterBuilder(const FuseFilterBuilder&) = delete;  // scratch_ may point into it
  FuseFilterBuilder& operator=(const FuseFilterBuilder&) = delete;

  uint32_t partition_bits() const { return filter_.partition_bits_; }
  uint32_t partitions() const { return uint32_t{1} << filter_.partition_bits_; }
  // Whose partition a hash is in.
  uint32_t partition_of(uint64_t hash) const { return static_cast<uint32_t>(filter_.partition_of(hash)); }
  // Consumes `hashes` (reordered and overwritten). Throws std::invalid_argument when out of order
  // or when a hash belongs to another partition.
  void add_partition(uint32_t index, std::vector<uint64_t>& hashes);
  // Every partition at once from hashes in any order (grouped by a counting sort in the scratch;
  // `hashes` may be reordered and overwritten). Only on a builder with no partition added yet.
  void add_all(std::vector<uint64_t>& hashes);
  FuseFilter finish();
  // Peak scratch bytes of the partition builds so far (for the memory bound's benchmark).
  uint64_t peak_scratch_bytes() const { return peak_scratch_bytes_; }

 private:
  // Peels and assigns one partition of `hashes` (mixed with its seed) at arity K.
  template <uint32_t K>
  void add_partition_at_arity(uint32_t index, std::vector<uint64_t>& hashes);

  FuseFilter filter_;
  FuseBuildScratch own_scratch_;
  FuseBuildScratch* scratch_;
  uint32_t next_partition_ = 0;
  uint64_t peak_scratch_bytes_ = 0;
};

}  // namespace bloomcrawl::seenfilter
