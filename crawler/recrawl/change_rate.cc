#include "crawler/recrawl/change_rate.h"

#include <cmath>

namespace bloomcrawl::recrawl {
namespace {

// The bias correction's weight: half an unchanged visit (Cho and Garcia-Molina's "+0.5").
constexpr double kUnchangedPseudoVisits = 0.5;

// d/dλ of the log-likelihood: Σ_changed t/(e^(λt) - 1) - Σ_unchanged t.
// Strictly decreasing in λ, from +∞ at 0+ to -Σ_unchanged t, so it has one root when both sums exist.
double likelihood_slope(std::span<const Visit> visits, double unchanged_time, double rate) {
  double slope = -unchanged_time;
  for (const Visit& visit : visits) {
    if (visit.changed && visit.interval_s > 0) {
      auto t = static_cast<double>(visit.interval_s);
      slope += t / std::expm1(rate * t);
    }
  }
  return slope;
}

}  // namespace

double estimate_change_rate(std::span<const Visit> visits) {
  double total_time = 0;
  double unchanged_time = 0;
  int counted = 0;
  bool any_changed = false;
  for (const Visit& visit : visits) {
    if (visit.interval_s <= 0) {
      continue;
    }
    auto t = static_cast<double>(visit.interval_s);
    total_time += t;
    ++counted;
    if (visit.changed) {
      any_changed = true;
    } else {
      unchanged_time += t;
    }
  }
  if (!any_changed) {
    return 0;
  }
  unchanged_time += kUnchangedPseudoVisits * total_time / counted;
  // Bisection on log λ: the root lies where the slope changes sign; bracket it first.
  double low = 1.0 / total_time / 1024;
  double high = 1.0 / total_time;
  while (likelihood_slope(visits, unchanged_time, low) <= 0) {
    low /= 2;
  }
  while (likelihood_slope(visits, unchanged_time, high) > 0) {
    high *= 2;
  }
  constexpr int kSteps = 100;  // far past double precision on a bracket of a few octaves
  for (int step = 0; step < kSteps; ++step) {
    double middle = std::sqrt(low * high);
    if (likelihood_slope(visits, unchanged_time, middle) > 0) {
      low = middle;
    } else {
      high = middle;
    }
  }
  return std::sqrt(low * high);
}

}  // namespace bloomcrawl::recrawl
