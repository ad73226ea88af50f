// estimate_change_rate: how often a page changes, from what its revisits saw (Cho and
// Garcia-Molina, "Estimating Frequency of Change", ACM TOIT 3(3), 2003; docs/recrawl.md).
//
// Contract:
// - A page is modelled as a Poisson process of changes with an unknown rate λ (changes per second).
//   A revisit sees only whether the page changed at least once since the previous visit, never how
//   often: P(changed) = 1 - e^(-λ·t) for a visit t seconds after the previous one.
// - The estimate is the maximum-likelihood λ for irregular intervals (section 5 of the paper), with
//   the paper's bias correction carried over: half an unchanged visit at the mean interval is added.
//   With every interval equal to I this is exactly the paper's improved estimator
//   λ = -ln((n - X + 0.5) / (n + 0.5)) / I (n visits, X of them changed), which stays finite when
//   every visit saw a change and is 0 when none did.
// - Visits with a non-positive interval are ignored; with none left the estimate is 0.
// Pure functions, no state: safe from any thread.
#pragma once

#include <cstdint>
#include <span>

namespace bloomcrawl::recrawl {

// One revisit: how long after the previous visit it came, and whether it found the page changed.
struct Visit {
  std::int64_t interval_s = 0;
  bool changed = false;
  bool operator==(const Visit&) const = default;
};

// Changes per second; 0 when no visit saw a change.
double estimate_change_rate(std::span<const Visit> visits);

}  // namespace bloomcrawl::recrawl
