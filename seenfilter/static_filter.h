// StaticFilter: one shard of the compact layers (compact_layers.h): a FuseFilter, or a
// SortedFilter for shards too small for a fuse filter's size factor (compact_math.h, ShardPlan).
// Lookups dispatch on the kind inline (no virtual call on the probe path). Files of either kind
// decode here, told apart by their magic (docs/seenfilter.md).
// Thread safety: as the filter it holds (immutable once built).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "seenfilter/fuse_filter.h"
#include "seenfilter/sorted_filter.h"

namespace bloomcrawl::seenfilter {

class StaticFilter {
 public:
  explicit StaticFilter(FuseFilter filter) : filter_(std::move(filter)) {}
  explicit StaticFilter(SortedFilter filter) : filter_(std::move(filter)) {}

  bool contains(uint64_t hash) const {
    if (const auto* fuse = std::get_if<FuseFilter>(&filter_)) return fuse->contains(hash);
    return std::get_if<SortedFilter>(&filter_)->contains(hash);
  }
  void prefetch(uint64_t hash) const {
    if (const auto* fuse = std::get_if<FuseFilter>(&filter_)) {
      fuse->prefetch(hash);
    } else {
      std::get_if<SortedFilter>(&filter_)->prefetch(hash);
    }
  }

  const FuseFilter* fuse() const { return std::get_if<FuseFilter>(&filter_); }        // null when sorted
  const SortedFilter* sorted() const { return std::get_if<SortedFilter>(&filter_); }  // null when fuse
  uint32_t fingerprint_bits() const;
  uint64_t keys() const;   // distinct keys
  uint64_t bytes() const;  // the filter's memory
  double bits_per_key() const;
  std::string encode() const;
  // Either file kind; throws CheckpointError naming `file` when `in` is neither, or not valid.
  static StaticFilter decode(std::string_view in, const std::string& file);

 private:
  std::variant<FuseFilter, SortedFilter> filter_;
};

}  // namespace bloomcrawl::seenfilter
