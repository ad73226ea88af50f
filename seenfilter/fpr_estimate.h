// FPR estimators over a filter's layers, from each layer's geometry and key count.
//
// The key count is exact (inserts are counted), so the model FPR of the blocked layer at that
// count (blocked_fpr) is used rather than a fill-based estimate, which would miss the blocking
// penalty. A query is a false positive if any layer says yes: 1 - prod(1 - f_i).
#pragma once

#include <cstdint>
#include <span>

#include "seenfilter/blocked_bloom_math.h"

namespace bloomcrawl::seenfilter {

struct LayerLoad {
  LayerGeometry geometry;
  uint64_t keys = 0;
};

double layer_fpr(const LayerGeometry& geometry, uint64_t keys);
double compounded_fpr(std::span<const LayerLoad> layers);

// Sum over every kNew insert so far of the filter's FPR at that moment. Layers fill in order, so
// the state at the t-th insert into layer i is fixed (earlier layers full, layer i holding t keys)
// and the sum is  sum_i [ n_i * F_<i + (1 - F_<i) * sum_{t<n_i} f_i(t) ],  with the inner sum
// integrated numerically (Simpson) since f_i is smooth in t.
double expected_false_positives(std::span<const LayerLoad> layers);

}  // namespace bloomcrawl::seenfilter
