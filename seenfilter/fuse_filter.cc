#include "seenfilter/fuse_filter.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <stdexcept>

#include "base/checksum.h"
#include "base/coding.h"
#include "base/data_error.h"
#include "seenfilter/hash_sort.h"

namespace bloomcrawl::seenfilter {
namespace {

constexpr char kMagic[8] = {'B', 'C', 'S', 'F', 'F', 'U', 'S', 'E'};
constexpr uint32_t kFormatVersion = 2;  // version 1: 3-wise, the arity field reserved (0)
constexpr size_t kHeaderBytes = 48;
constexpr size_t kPartitionBytes = 32;
constexpr size_t kTrailerBytes = 8;  // checksum64 of all bytes before it
constexpr uint32_t kMaxPartitionBits = 16;
constexpr uint32_t kMaxSegmentLength = uint32_t{1} << 18;
constexpr uint64_t kMaxCells = uint64_t{1} << 40;
// A partition whose peeling fails is retried with the next seed. With distinct keys and Graf and
// Lemire's sizing a failure is rare (well under 1% per seed for large sets, a few % for tiny ones).
constexpr int kMaxSeeds = 1000;
// Partitions above this many keys (cells beyond the caches) are peeled in sorted order, so the
// counting pass streams through the cells; smaller ones in arrival order.
constexpr size_t kSortAboveKeys = size_t{1} << 21;
// Cells the peeling pops at a time (add_partition_at_arity): 16 and 32 measured alike.
constexpr size_t kPeelBatch = 32;

constexpr uint64_t inverse_odd(uint64_t c) {  // c * inverse == 1 (mod 2^64), Newton's iteration
  uint64_t x = c;
  for (int i = 0; i < 6; ++i) x *= 2 - c * x;
  return x;
}

uint64_t unmix64(uint64_t x) {  // the inverse of mix64 (each x ^= x >> 33 is its own inverse)
  x ^= x >> 33;
  x *= inverse_odd(0xc4ceb9fe1a85ec53ULL);
  x ^= x >> 33;
  x *= inverse_odd(0xff51afd7ed558ccdULL);
  x ^= x >> 33;
  return x;
}

uint64_t partition_seed(uint32_t partition, int attempt) {
  return mix64((uint64_t{partition} << 32 | static_cast<uint32_t>(attempt)) + 0x9e3779b97f4a7c15ULL);
}

}  // namespace

uint64_t FuseFilter::bytes() const { return words_.size() * sizeof(uint64_t); }

double FuseFilter::bits_per_key() const {
  return keys_ == 0 ? 0.0 : static_cast<double>(bytes()) * 8.0 / static_cast<double>(keys_);
}

FuseFilter FuseFilter::build(std::span<const uint64_t> hashes, uint32_t fingerprint_bits, uint32_t arity) {
  FuseFilterBuilder builder(hashes.size(), fingerprint_bits, partition_bits_for(hashes.size(), fingerprint_bits),
                            nullptr, arity);
  std::vector<std::vector<uint64_t>> parts(builder.partitions());
  for (uint64_t h : hashes) parts[builder.partition_of(h)].push_back(h);
  for (uint32_t i = 0; i < builder.partitions(); ++i) builder.add_partition(i, parts[i]);
  return builder.finish();
}

FuseFilterBuilder::FuseFilterBuilder(uint64_t expected_keys, uint32_t fingerprint_bits)
    : FuseFilterBuilder(expected_keys, fingerprint_bits, partition_bits_for(expected_keys, fingerprint_bits)) {}

FuseFilterBuilder::FuseFilterBuilder(uint64_t expected_keys, uint32_t fingerprint_bits, uint32_t partition_bits,
                                     FuseBuildScratch* scratch, uint32_t arity)
    : scratch_(scratch != nullptr ? scratch : &own_scratch_) {
  if (arity != 3 && arity != 4) throw std::invalid_argument("FuseFilterBuilder: arity " + std::to_string(arity));
  filter_.arity_ = arity;
  if (fingerprint_bits < kMinFingerprintBits || fingerprint_bits > kMaxFingerprintBits) {
    throw std::invalid_argument("FuseFilterBuilder: fingerprint_bits " + std::to_string(fingerprint_bits) +
                                " is outside [1, 32]");
  }
  if (partition_bits > kMaxPartitionBits) throw std::invalid_argument("FuseFilterBuilder: too many partitions");
  filter_.fingerprint_bits_ = fingerprint_bits;
  filter_.cell_mask_ = (uint64_t{1} << fingerprint_bits) - 1;
  filter_.partition_bits_ = partition_bits;
  filter_.partitions_.assign(size_t{1} << partition_bits, FuseFilter::Partition{});
  const uint64_t per_partition = expected_keys >> partition_bits;
  const auto expected_cells =
      static_cast<uint64_t>(static_cast<double>(expected_keys) * fuse_cells_per_key(per_partition, arity) * 1.01);
  filter_.words_.clear();
  filter_.words_.reserve(packed_words(expected_cells, fingerprint_bits));
  filter_.words_.push_back(0);
}

void FuseFilterBuilder::add_partition(uint32_t index, std::vector<uint64_t>& hashes) {
  if (index != next_partition_ || index >= partitions()) {
    throw std::invalid_argument("FuseFilterBuilder: partition " + std::to_string(index) + " out of order");
  }
  for (uint64_t h : hashes) {
    if (partition_of(h) != index) throw std::invalid_argument("FuseFilterBuilder: hash outside its partition");
  }
  ++next_partition_;
  if (filter_.arity_ == 4) {
    add_partition_at_arity<4>(index, hashes);
  } else {
    add_partition_at_arity<3>(index, hashes);
  }
}

template <uint32_t K>
void FuseFilterBuilder::add_partition_at_arity(uint32_t index, std::vector<uint64_t>& hashes) {
  FuseFilter::Partition& p = filter_.partitions_[index];
  p.first_cell = filter_.cells_;
  // Mixed with the first seed and peeled in arrival order when the partition's cells fit in the
  // caches: sorting for locality, as Graf and Lemire do for one large filter, cost a third of a
  // rebuild's CPU on shards of 2^16-2^18 keys and saved less. Duplicates make peeling fail (two
  // equal keys share their cells), but so does bad luck with a seed (~1% of partitions of
  // 2^17 keys, a few % of small ones), so the hashes are sorted and deduplicated only when a
  // second seed fails too (a sort on the first failure was 2% of a rebuild's time): mix64(h + seed)
  // is a bijection, so equal hashes stay equal and distinct ones distinct.
  p.seed = partition_seed(index, 0);
  for (uint64_t& h : hashes) h = mix64(h + p.seed);
  if (hashes.size() > (uint64_t{1} << 31)) throw std::invalid_argument("FuseFilterBuilder: partition too large");
  const bool sorted_for_locality = hashes.size() > kSortAboveKeys;
  bool deduplicated = false;
  const auto deduplicate = [&] {
    sort_hashes(hashes);
    hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
    deduplicated = true;
  };
  if (sorted_for_locality) deduplicate();
  FuseFilter::Partition local = p;
  local.first_cell = 0;
  FuseBuildScratch& scratch = *scratch_;
  FuseGeometry g;
  size_t sized_for = 0;  // the key count the scratch and g are sized for (0: not yet)
  size_t peeled = 0;
  for (int attempt = 0;; ++attempt) {
    if (attempt == kMaxSeeds) throw std::runtime_error("FuseFilterBuilder: peeling failed for every seed");
    if (attempt > 0) {
      if (attempt > 1 && !deduplicated) deduplicate();  // then the likely cause of the failure
      const uint64_t previous = p.seed;
      p.seed = partition_seed(index, attempt);
      for (uint64_t& h : hashes) h = mix64(unmix64(h) - previous + p.seed);
      if (sorted_for_locality) sort_hashes(hashes);
    }
    if (hashes.empty()) break;
    if (sized_for != hashes.size()) {
      sized_for = hashes.size();
      g = fuse_geometry(sized_for, K);
      // reserve() before resize(): a resize past the capacity may double it, and the scratch of
      // the largest shard is what a rebuild holds beside the filter.
      scratch.count.assign(g.cells, 0);
      scratch.xored.assign(g.cells, 0);
      scratch.stack.reserve(g.cells + 1);  // + the spare slot of the peeling's pushes
      scratch.stack.resize(g.cells + 1);
      peak_scratch_bytes_ = std::max(peak_scratch_bytes_, scratch.bytes());
    } else if (attempt > 0) {
      std::fill(scratch.count.begin(), scratch.count.end(), 0);
      std::fill(scratch.xored.begin(), scratch.xored.end(), 0);
    }
    local.seed = p.seed;
    local.segment_length = g.segment_length;
    local.segment_count = g.segment_count;
    uint8_t* const count = scratch.count.data();
    uint64_t* const xored = scratch.xored.data();
    uint32_t* const stack = scratch.stack.data();
    bool overflow = false;
    for (uint64_t h : hashes) {
      const FuseFilter::Cells c = FuseFilter::cells_of(h, local);
      for (uint32_t j = 0; j < K; ++j) {
        overflow |= count[c.at[j]] >= 252;
        count[c.at[j]] = static_cast<uint8_t>((count[c.at[j]] + 4) ^ j);
        xored[c.at[j]] ^= h;
      }
    }
    if (overflow) continue;
    // One array holds the cells waiting to be peeled (a stack growing down from its end) and the
    // cells keys were peeled from, in order (growing up from its start): a cell is pushed at most
    // once (when its count first becomes one) and each peel pops one (popped when its batch is
    // taken, below), so the two never meet.
    // A key's peeled cell keeps its count and XOR (no key peeled later is in it), so it names the
    // key and which of its cells it is for the assignment below. A push is a store without a
    // branch: whether a cell's count just fell to one is a coin toss the predictor misses, and
    // was a quarter of a build's time; a cell not pushed is stored in a spare slot past the end.
    // Cells are popped kPeelBatch at a time: popping one at a time, each pop read the cell the
    // previous peel had just pushed, a chain of dependent loads; a batch's peels are independent
    // (any order of peeling alone cells is a valid one), so the CPU overlaps their loads. The
    // peeling took 11-14 instead of 22-24 ns per key (4-wise, 2^15-2^17 keys, this machine).
    const size_t cells = g.cells;
    size_t top = cells;
    for (size_t i = 0; i < cells; ++i) {  // top >= 1 here: fewer than `cells` cells pushed so far
      stack[top - 1] = static_cast<uint32_t>(i);
      top -= (count[i] >> 2) == 1;
    }
    peeled = 0;
    std::array<uint32_t, kPeelBatch> batch;  // NOLINT(cppcoreguidelines-pro-type-member-init)
    while (top < cells) {
      const size_t taken = std::min(kPeelBatch, cells - top);
      std::copy_n(stack + top, taken, batch.begin());
      top += taken;
      for (size_t b = 0; b < taken; ++b) {
        const uint32_t cell = batch[b];
        if ((count[cell] >> 2) != 1) continue;  // its key was peeled from another of its cells
        const uint64_t h = xored[cell];
        const uint8_t found = count[cell] & 3;
        stack[peeled++] = cell;
        const FuseFilter::Cells c = FuseFilter::cells_of(h, local);
        for (uint32_t j = 0; j < K; ++j) {
          if (j == found) continue;
          const uint64_t other = c.at[j];
          count[other] = static_cast<uint8_t>((count[other] - 4) ^ j);
          xored[other] ^= h;
          const bool alone = (count[other] >> 2) == 1;
          top -= alone;
          stack[alone ? top : cells] = static_cast<uint32_t>(other);
        }
      }
    }
    if (peeled == hashes.size()) break;
  }
  p.keys = hashes.size();
  if (hashes.empty()) {
    p.seed = 0;
    return;
  }
  p.segment_length = g.segment_length;
  p.segment_count = g.segment_count;
  const size_t cells = g.cells;
  uint8_t* const count = scratch.count.data();
  uint64_t* const xored = scratch.xored.data();
  const uint32_t* const order = scratch.stack.data();
  // In reverse peeling order each key's peeled cell gets the value that makes its K cells XOR
  // to its fingerprint. It is written over the cell's XOR in place: the other cells are either
  // assigned already (keys peeled later) or in no key's peeled cell (their XOR is back to zero),
  // and no key peeled earlier reads this cell.
  for (size_t i = peeled; i-- > 0;) {
    const uint32_t cell = order[i];
    const uint64_t h = xored[cell];
    const uint8_t found = count[cell] & 3;
    const FuseFilter::Cells c = FuseFilter::cells_of(h, local);
    uint64_t value = filter_.fingerprint(h);
    for (uint32_t j = 0; j < K; ++j) value ^= j == found ? 0 : xored[c.at[j]];
    xored[cell] = value;
  }
  filter_.cells_ += cells;
  filter_.keys_ += hashes.size();
  filter_.words_.resize(packed_words(filter_.cells_, filter_.fingerprint_bits_), 0);
  for (size_t i = 0; i < cells; ++i)
    or_packed(filter_.words_.data(), p.first_cell + i, filter_.fingerprint_bits_, xored[i]);
}

void FuseFilterBuilder::add_all(std::vector<uint64_t>& hashes) {
  if (next_partition_ != 0) throw std::invalid_argument("FuseFilterBuilder: add_all after add_partition");
  if (partitions() == 1) {
    add_partition(0, hashes);
    return;
  }
  FuseBuildScratch& scratch = *scratch_;
  std::vector<size_t> next(size_t{partitions()} + 1);
  for (const uint64_t h : hashes) ++next[partition_of(h) + 1];
  for (size_t p = 1; p < next.size(); ++p) next[p] += next[p - 1];
  const std::vector<size_t> begin = next;
  scratch.grouped.reserve(hashes.size());  // reserve() first: resize() past the capacity may double it
  scratch.grouped.resize(hashes.size());
  for (const uint64_t h : hashes) scratch.grouped[next[partition_of(h)]++] = h;
  for (uint32_t p = 0; p < partitions(); ++p) {
    scratch.part.reserve(begin[p + 1] - begin[p]);
    scratch.part.assign(scratch.grouped.begin() + static_cast<std::ptrdiff_t>(begin[p]),
                        scratch.grouped.begin() + static_cast<std::ptrdiff_t>(begin[p + 1]));
    add_partition(p, scratch.part);
  }
  peak_scratch_bytes_ = std::max(peak_scratch_bytes_, scratch.bytes());
}

FuseFilter FuseFilterBuilder::finish() {
  if (next_partition_ != partitions()) throw std::invalid_argument("FuseFilterBuilder: partitions missing");
  filter_.words_.shrink_to_fit();
  return std::move(filter_);
}

std::string FuseFilter::encode() const {
  std::string out;
  out.reserve(kHeaderBytes + partitions_.size() * kPartitionBytes + bytes() + kTrailerBytes);
  out.append(kMagic, sizeof kMagic);
  put_le(out, kFormatVersion, 4);
  put_le(out, fingerprint_bits_, 4);
  put_le(out, partition_bits_, 4);
  put_le(out, arity_, 4);
  put_le(out, keys_, 8);
  put_le(out, cells_, 8);
  put_le(out, 0, 8);
  for (const Partition& p : partitions_) {
    put_le(out, p.seed, 8);
    put_le(out, p.keys, 8);
    put_le(out, p.segment_length, 4);
    put_le(out, p.segment_count, 4);
    put_le(out, p.first_cell, 8);
  }
  put_le_words<uint64_t>(out, words_);
  put_le(out, checksum64(out), 8);
  return out;
}

FuseFilter FuseFilter::decode(std::string_view in, const std::string& file) {
  auto fail = [&](const std::string& what) { throw CheckpointError(file, "compact filter: " + what); };
  if (in.size() < kHeaderBytes + kTrailerBytes) fail("truncated header");
  if (in.substr(0, 8) != std::string_view(kMagic, 8)) fail("bad magic");
  const uint64_t version = get_le(in, 8, 4);
  if (version != 1 && version != kFormatVersion) fail("unsupported version " + std::to_string(version));
  const size_t body = in.size() - kTrailerBytes;
  if (get_le(in, body, 8) != checksum64(in.data(), body)) fail("checksum mismatch");
  FuseFilter f;
  f.fingerprint_bits_ = static_cast<uint32_t>(get_le(in, 12, 4));
  f.partition_bits_ = static_cast<uint32_t>(get_le(in, 16, 4));
  f.keys_ = get_le(in, 24, 8);
  f.cells_ = get_le(in, 32, 8);
  if (f.fingerprint_bits_ < kMinFingerprintBits || f.fingerprint_bits_ > kMaxFingerprintBits) {
    fail("fingerprint bits " + std::to_string(f.fingerprint_bits_) + " outside [1, 32]");
  }
  if (f.partition_bits_ > kMaxPartitionBits) fail("partition bits " + std::to_string(f.partition_bits_));
  if (get_le(in, 40, 8) != 0 || (version == 1 && get_le(in, 20, 4) != 0)) fail("reserved field not zero");
  f.arity_ = version == 1 ? 3 : static_cast<uint32_t>(get_le(in, 20, 4));
  if (f.arity_ != 3 && f.arity_ != 4) fail("arity " + std::to_string(f.arity_) + " is not 3 or 4");
  if (f.cells_ > kMaxCells) fail("too many cells");
  f.cell_mask_ = (uint64_t{1} << f.fingerprint_bits_) - 1;
  const size_t partitions = size_t{1} << f.partition_bits_;
  const uint64_t words = packed_words(f.cells_, f.fingerprint_bits_);
  const uint64_t expected = kHeaderBytes + partitions * kPartitionBytes + words * 8 + kTrailerBytes;
  if (in.size() != expected) fail("size " + std::to_string(in.size()) + ", expected " + std::to_string(expected));
  f.partitions_.resize(partitions);
  uint64_t cells = 0;
  uint64_t keys = 0;
  for (size_t i = 0; i < partitions; ++i) {
    const size_t at = kHeaderBytes + i * kPartitionBytes;
    Partition& p = f.partitions_[i];
    p.seed = get_le(in, at, 8);
    p.keys = get_le(in, at + 8, 8);
    p.segment_length = static_cast<uint32_t>(get_le(in, at + 16, 4));
    p.segment_count = static_cast<uint32_t>(get_le(in, at + 20, 4));
    p.first_cell = get_le(in, at + 24, 8);
    const std::string which = "partition " + std::to_string(i) + ": ";
    if (p.first_cell != cells) fail(which + "first cell out of place");
    if (p.segment_length == 0) {
      if (p.segment_count != 0 || p.keys != 0) fail(which + "empty partition with keys or segments");
    } else {
      if (!std::has_single_bit(p.segment_length) || p.segment_length < 4 || p.segment_length > kMaxSegmentLength) {
        fail(which + "bad segment length " + std::to_string(p.segment_length));
      }
      if (p.segment_count == 0) fail(which + "no segments");
      if (p.keys == 0 || p.keys > p.cells(f.arity_)) fail(which + "key count does not fit its cells");
    }
    cells += p.cells(f.arity_);
    keys += p.keys;
    if (cells > f.cells_) fail(which + "cells beyond the filter's");
  }
  if (cells != f.cells_) fail("partition cells do not add up");
  if (keys != f.keys_) fail("partition keys do not add up");
  f.words_.resize(words);
  const size_t words_at = kHeaderBytes + partitions * kPartitionBytes;
  get_le_words<uint64_t>(in, words_at, f.words_);
  return f;
}

}  // namespace bloomcrawl::seenfilter
