#include "seenfilter/fpr_estimate.h"

#include <cmath>

namespace bloomcrawl::seenfilter {
namespace {

// Sum of f(t) for t in [0, keys): Simpson's rule over the integral of f from 0 to keys.
double summed_layer_fpr(const LayerGeometry& g, uint64_t keys) {
  if (keys == 0) return 0.0;
  constexpr int kIntervals = 64;  // even, as Simpson needs
  const auto n = static_cast<double>(keys);
  if (keys <= kIntervals) {
    double sum = 0.0;
    for (uint64_t t = 0; t < keys; ++t) sum += layer_fpr(g, t);
    return sum;
  }
  const double h = n / kIntervals;
  double sum = layer_fpr(g, 0) + layer_fpr(g, keys);
  for (int i = 1; i < kIntervals; ++i) {
    const auto t = static_cast<uint64_t>(h * i);
    sum += (i % 2 == 1 ? 4.0 : 2.0) * layer_fpr(g, t);
  }
  return sum * h / 3.0;
}

}  // namespace

double layer_fpr(const LayerGeometry& geometry, uint64_t keys) {
  return blocked_fpr(static_cast<double>(keys) / static_cast<double>(geometry.blocks), geometry.probes);
}

// Products of (1 - f) are kept as sums of log1p(-f): FPRs near 1e-16 would vanish in 1 - prod.
// 0.0 - expm1(x) rather than -expm1(x): an empty filter's FPR is +0, not -0 (printed "-0").
double compounded_fpr(std::span<const LayerLoad> layers) {
  double log_pass = 0.0;  // log of the chance that no layer reports a new key as present
  for (const LayerLoad& l : layers) log_pass += std::log1p(-layer_fpr(l.geometry, l.keys));
  return 0.0 - std::expm1(log_pass);
}

double expected_false_positives(std::span<const LayerLoad> layers) {
  double total = 0.0;
  double earlier_log_pass = 0.0;
  for (const LayerLoad& l : layers) {
    const double earlier_fpr = 0.0 - std::expm1(earlier_log_pass);
    total +=
        static_cast<double>(l.keys) * earlier_fpr + std::exp(earlier_log_pass) * summed_layer_fpr(l.geometry, l.keys);
    earlier_log_pass += std::log1p(-layer_fpr(l.geometry, l.keys));
  }
  return total;
}

}  // namespace bloomcrawl::seenfilter
