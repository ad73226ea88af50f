#include "seenfilter/layer_plan.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace bloomcrawl {
namespace {

[[noreturn]] void reject(const char* option, double value, const std::string& why) {
  std::ostringstream msg;
  msg.precision(17);
  msg << "SeenFilterOptions: " << option << " = " << value << " " << why;
  throw std::invalid_argument(msg.str());
}

}  // namespace

void SeenFilterOptions::validate() const {
  if (initial_capacity < 1 || initial_capacity > seenfilter::kMaxLayerCapacity) {
    reject("initial_capacity", static_cast<double>(initial_capacity), "is outside [1, 2^48]");
  }
  if (!(target_fpr > 0.0 && target_fpr < 1.0)) reject("target_fpr", target_fpr, "is outside (0, 1)");
  if (!(growth_factor >= 1.0 && growth_factor <= 64.0)) {
    reject("growth_factor", growth_factor, "is outside [1, 64]");
  }
  if (!(tightening_ratio >= 0.0 && tightening_ratio < 1.0)) {
    reject("tightening_ratio", tightening_ratio, "is outside [0, 1)");
  }
  const seenfilter::LayerGeometry first = seenfilter::plan_layer(*this, 0);
  if (first.blocks == 0) {
    reject("target_fpr", target_fpr,
           "is unreachable: the first layer would need more than 128 bits per key (raise target_fpr or "
           "tightening_ratio)");
  }
  if (first.bytes() > memory_limit_bytes) {
    reject("memory_limit_bytes", static_cast<double>(memory_limit_bytes),
           "is smaller than the first layer (" + std::to_string(first.bytes()) + " bytes for initial_capacity " +
               std::to_string(initial_capacity) + ")");
  }
}

namespace seenfilter {

uint64_t layer_capacity(const SeenFilterOptions& options, uint32_t index) {
  const double cap = std::ceil(static_cast<double>(options.initial_capacity) *
                               std::pow(options.growth_factor, static_cast<double>(index)));
  // Capped like initial_capacity, so byte counts of even absurd layers cannot overflow.
  constexpr uint64_t kMax = kMaxLayerCapacity;
  return cap >= static_cast<double>(kMax) ? kMax : static_cast<uint64_t>(cap);
}

double layer_fpr_share(const SeenFilterOptions& options, uint32_t index) {
  return options.target_fpr * (1.0 - options.tightening_ratio) *
         std::pow(options.tightening_ratio, static_cast<double>(index));
}

LayerGeometry plan_layer(const SeenFilterOptions& options, uint32_t index) {
  return size_layer(index, layer_capacity(options, index), layer_fpr_share(options, index));
}

}  // namespace seenfilter
}  // namespace bloomcrawl
