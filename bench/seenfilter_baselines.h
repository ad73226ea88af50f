// The two baselines the seen-filter benchmarks compare SeenFilter against, behind the same small
// interface the benchmark templates use (insert, contains, bytes):
//  - LibBloom: Debian's libbloom 1.6 (bloom_init/bloom_add/bloom_check), a classic unblocked
//    Bloom filter with k = ceil(ln2 * bits/key) probes spread over the whole array. Its API takes
//    `int` entries and keeps the bit count in an `int`, so a filter is limited to 2^31 - 1 bits
//    (256 MiB); larger configurations are reported as unsupported, not attempted.
//  - StandardBloom: the same classic filter (m = n·ln(1/p)/ln²2 bits, k = round(ln2·m/n) probes
//    over the whole array) with 64-bit indexes, for the sizes libbloom cannot hold: k indexes
//    (h1 + i·h2) mapped onto m by a multiply-high, from one 128-bit XXH3. Single calls, no batch.
//  - ExactHashSet: a flat open-addressing (linear probing) set of 64-bit XXH3 hashes at load
//    <= 0.5, the memory baseline for "remember every key exactly" (a 64-bit hash set's false
//    positive rate, ~n / 2^64, is negligible). Not thread-safe for inserts, like libbloom.
#pragma once

#include <bloom.h>
#include <sys/mman.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "seenfilter/key_hash.h"

namespace bloomcrawl::bench {

class LibBloom {
 public:
  // Why libbloom cannot build this filter, or nullopt when it can.
  static std::optional<std::string> unsupported(uint64_t keys, double fpr) {
    const double bits = static_cast<double>(keys) * -std::log(fpr) / (std::log(2.0) * std::log(2.0));
    if (keys > static_cast<uint64_t>(INT_MAX) || bits > static_cast<double>(INT_MAX)) {
      return "libbloom " + std::string(bloom_version()) +
             " keeps entries and bits in int: " + std::to_string(static_cast<uint64_t>(bits)) + " bits > 2^31-1";
    }
    return std::nullopt;
  }

  LibBloom(uint64_t keys, double fpr) {
    if (auto why = unsupported(keys, fpr)) throw std::invalid_argument(*why);
    if (bloom_init(&bloom_, static_cast<int>(keys), fpr) != 0) throw std::runtime_error("bloom_init failed");
  }
  ~LibBloom() { bloom_free(&bloom_); }
  LibBloom(const LibBloom&) = delete;
  LibBloom& operator=(const LibBloom&) = delete;

  bool insert(std::string_view key) { return bloom_add(&bloom_, key.data(), static_cast<int>(key.size())) == 0; }
  // bloom_check only reads the bit array, so concurrent lookups are safe.
  bool contains(std::string_view key) const {
    return bloom_check(&bloom_, key.data(), static_cast<int>(key.size())) == 1;
  }
  uint64_t bytes() const { return static_cast<uint64_t>(bloom_.bytes); }
  int probes() const { return bloom_.hashes; }

 private:
  mutable struct bloom bloom_ {};  // bloom_check takes a non-const pointer but does not write
};

class StandardBloom {
 public:
  StandardBloom(uint64_t keys, double fpr)
      : bits_(static_cast<uint64_t>(
            std::ceil(static_cast<double>(keys) * -std::log(fpr) / (std::log(2.0) * std::log(2.0))))),
        probes_(static_cast<int>(std::lround(std::log(2.0) * static_cast<double>(bits_) / static_cast<double>(keys)))),
        bytes_((bits_ + 63) / 64 * 8) {
    void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    ::madvise(p, bytes_, MADV_HUGEPAGE);
    words_ = static_cast<uint64_t*>(p);
  }
  ~StandardBloom() { ::munmap(words_, bytes_); }
  StandardBloom(const StandardBloom&) = delete;
  StandardBloom& operator=(const StandardBloom&) = delete;

  // True when the key was new (some probed bit was clear), as LibBloom::insert.
  bool insert(std::string_view key) {
    const XXH128_hash_t h = XXH3_128bits(key.data(), key.size());
    uint64_t added = 0;
    for (int i = 0; i < probes_; ++i) {
      const uint64_t bit = index(h, i);
      const uint64_t mask = uint64_t{1} << (bit & 63);
      added |= ~words_[bit >> 6] & mask;
      words_[bit >> 6] |= mask;
    }
    return added != 0;
  }
  bool contains(std::string_view key) const {
    const XXH128_hash_t h = XXH3_128bits(key.data(), key.size());
    for (int i = 0; i < probes_; ++i) {
      const uint64_t bit = index(h, i);
      if ((words_[bit >> 6] & (uint64_t{1} << (bit & 63))) == 0) return false;
    }
    return true;
  }
  uint64_t bytes() const { return bytes_; }
  int probes() const { return probes_; }

 private:
  uint64_t index(const XXH128_hash_t& h, int i) const {
    return seenfilter::fastrange64(h.low64 + static_cast<uint64_t>(i) * (h.high64 | 1), bits_);
  }

  uint64_t bits_;
  int probes_;
  uint64_t bytes_;
  uint64_t* words_ = nullptr;
};

class ExactHashSet {
 public:
  explicit ExactHashSet(uint64_t keys) {
    while (slots_ < 2 * keys) slots_ *= 2;
    // Lazily zeroed pages, like SeenFilter's mmap'd layers and libbloom's calloc.
    void* p = ::mmap(nullptr, bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    ::madvise(p, bytes(), MADV_HUGEPAGE);  // as SeenFilter's layers do; libbloom's calloc cannot
    table_ = static_cast<uint64_t*>(p);
  }
  ~ExactHashSet() { ::munmap(table_, bytes()); }
  ExactHashSet(const ExactHashSet&) = delete;
  ExactHashSet& operator=(const ExactHashSet&) = delete;

  bool insert(std::string_view key) {
    const uint64_t h = hash(key);
    uint64_t i = h & (slots_ - 1);
    for (; table_[i] != 0; i = (i + 1) & (slots_ - 1)) {
      if (table_[i] == h) return false;
    }
    table_[i] = h;
    return true;
  }
  bool contains(std::string_view key) const {
    const uint64_t h = hash(key);
    for (uint64_t i = h & (slots_ - 1); table_[i] != 0; i = (i + 1) & (slots_ - 1)) {
      if (table_[i] == h) return true;
    }
    return false;
  }
  uint64_t bytes() const { return slots_ * sizeof(uint64_t); }

 private:
  static uint64_t hash(std::string_view key) {
    const uint64_t h = XXH3_64bits(key.data(), key.size());
    return h == 0 ? 1 : h;  // 0 marks an empty slot
  }

  uint64_t slots_ = 1024;
  uint64_t* table_ = nullptr;
};

}  // namespace bloomcrawl::bench
