#include "seenfilter/blocked_bloom_math.h"

#include <math.h>

#include <algorithm>
#include <cmath>

namespace bloomcrawl::seenfilter {

double blocked_fpr(double keys_per_block, uint32_t probes) {
  if (keys_per_block <= 0.0) return 0.0;
  // Beyond ~1000 keys per 512-bit block every bit is set; the sum below would also get long.
  if (keys_per_block > 1024.0) return 1.0;
  const double lambda = keys_per_block;
  const double spread = 14.0 * std::sqrt(lambda) + 16.0;  // Poisson tail past 14 sigma is < 1e-40
  const auto first = static_cast<uint64_t>(std::max(0.0, std::floor(lambda - spread)));
  const auto last = static_cast<uint64_t>(std::ceil(lambda + spread));
  const double log_lambda = std::log(lambda);
  const double log_bit_clear_per_probe = std::log1p(-1.0 / kBlockBits);
  double fpr = 0.0;
  for (uint64_t j = first; j <= last; ++j) {
    const double jd = static_cast<double>(j);
    int sign;  // lgamma_r: std::lgamma writes the global signgam, a data race between threads
    const double pmf = std::exp(-lambda + jd * log_lambda - ::lgamma_r(jd + 1.0, &sign));
    // Probability one probe hits a set bit in a block holding j other keys.
    const double bit_set = -std::expm1(static_cast<double>(probes) * jd * log_bit_clear_per_probe);
    fpr += pmf * std::pow(bit_set, probes);
  }
  return std::min(fpr, 1.0);
}

uint32_t best_probes(double keys_per_block) {
  uint32_t best = 1;
  double best_fpr = blocked_fpr(keys_per_block, 1);
  // The FPR is unimodal in k: stop once it rises.
  for (uint32_t k = 2; k <= kMaxProbes; ++k) {
    const double f = blocked_fpr(keys_per_block, k);
    if (f >= best_fpr) break;
    best_fpr = f;
    best = k;
  }
  return best;
}

LayerGeometry size_layer(uint32_t index, uint64_t capacity, double target_fpr) {
  LayerGeometry g{index, capacity, 0, 0};
  const double cap = static_cast<double>(capacity);
  const auto fits = [&](uint64_t blocks) {
    const double load = cap / static_cast<double>(blocks);
    return blocked_fpr(load, best_probes(load)) <= target_fpr;
  };
  // The FPR falls as blocks grow, so binary-search the block count.
  const auto max_blocks = static_cast<uint64_t>(std::ceil(cap * kMaxBitsPerKey / kBlockBits));
  if (!fits(max_blocks)) return g;
  uint64_t lo = 1, hi = max_blocks;  // invariant: fits(hi)
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (fits(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  g.blocks = hi;
  g.probes = best_probes(cap / static_cast<double>(hi));
  return g;
}

}  // namespace bloomcrawl::seenfilter
