// The layer plan of a scalable filter: layer i holds ceil(initial_capacity * growth_factor^i)
// keys at an FPR share of target_fpr * (1 - r) * r^i (r = tightening_ratio). The shares sum to
// less than target_fpr, so the union bound keeps the compounded FPR under the target for any
// number of layers. r = 0 is the limit case: layer 0 gets the whole target and later layers a
// share of 0, so the filter is one right-sized layer that never grows.
#pragma once

#include <cstdint>
#include <string>

#include "seenfilter/blocked_bloom_math.h"
#include "seenfilter/seen_filter.h"

namespace bloomcrawl::seenfilter {

inline constexpr uint64_t kMaxLayerCapacity = uint64_t{1} << 48;

uint64_t layer_capacity(const SeenFilterOptions& options, uint32_t index);
double layer_fpr_share(const SeenFilterOptions& options, uint32_t index);

// Geometry of layer `index`; blocks == 0 when its FPR share is unreachable.
LayerGeometry plan_layer(const SeenFilterOptions& options, uint32_t index);

}  // namespace bloomcrawl::seenfilter
