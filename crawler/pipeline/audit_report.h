// The `audit` section of report.json: what --audit compares, in the words a reader checks it by.
//   exact_urls                      URLs the filter answered for (the exact set's size)
//   admitted_urls                   URLs some admission got "new" for from the filter
//   false_positives                 "seen" answers for URLs no admission ever got "new" for: pages
//                                   wrongly skipped, counted exactly
//   filter_estimated_false_positives  the filter's own estimate of that count (its FPR model)
//   estimate_expected_range_95      where the count falls 95% of the time if the estimate is right
//                                   (a Poisson count with the estimate as its mean)
//   count_within_expected_range     false: more (or fewer) than chance explains; look for a bug
#pragma once

#include <cstdint>
#include <utility>

#include <nlohmann/json.hpp>

#include "crawler/persist/audit_set.h"

namespace bloomcrawl {

// The central 95% of a Poisson distribution with this mean: [2.5% quantile, 97.5% quantile].
std::pair<uint64_t, uint64_t> poisson_range_95(double mean);

nlohmann::json audit_report(const AuditSet& audit, double estimated_false_positives);

}  // namespace bloomcrawl
