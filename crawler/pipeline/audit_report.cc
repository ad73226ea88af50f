#include "crawler/pipeline/audit_report.h"

#include <algorithm>
#include <cmath>

namespace bloomcrawl {

std::pair<uint64_t, uint64_t> poisson_range_95(double mean) {
  if (!(mean > 0)) return {0, 0};
  if (mean > 1000) {  // the normal approximation is within one count there
    const double spread = 1.959964 * std::sqrt(mean);
    return {uint64_t(std::max(0.0, std::floor(mean - spread))), uint64_t(std::ceil(mean + spread))};
  }
  // Walk the CDF; the pmf is computed in log space so a mean near 1000 does not underflow.
  uint64_t low = 0;
  bool low_found = false;
  double cdf = 0;
  for (uint64_t k = 0;; ++k) {
    cdf += std::exp(double(k) * std::log(mean) - mean - std::lgamma(double(k) + 1));
    if (!low_found && cdf >= 0.025) {
      low = k;
      low_found = true;
    }
    if (cdf >= 0.975) return {low, k};
  }
}

nlohmann::json audit_report(const AuditSet& audit, double estimated_false_positives) {
  const auto [low, high] = poisson_range_95(estimated_false_positives);
  const uint64_t false_positives = audit.false_positives();
  return {{"exact_urls", audit.size()},
          {"admitted_urls", audit.admitted()},
          {"false_positives", false_positives},
          {"filter_estimated_false_positives", estimated_false_positives},
          {"estimate_expected_range_95", {low, high}},
          {"count_within_expected_range", false_positives >= low && false_positives <= high}};
}

}  // namespace bloomcrawl
