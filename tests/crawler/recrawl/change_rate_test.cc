// estimate_change_rate against Poisson change processes of known rate, simulated change by change.
#include "crawler/recrawl/change_rate.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace bloomcrawl::recrawl {
namespace {

// A page changing at `rate` per second, visited `count` times at intervals drawn by `next_interval`;
// each visit records whether a change happened since the previous one.
template <class NextInterval>
std::vector<Visit> simulate_visits(double rate, int count, std::mt19937_64& random, NextInterval next_interval) {
  std::exponential_distribution<double> gap(rate);
  double next_change = gap(random);
  double now = 0;
  std::vector<Visit> visits;
  for (int i = 0; i < count; ++i) {
    std::int64_t interval = next_interval(random);
    now += static_cast<double>(interval);
    bool changed = next_change <= now;
    while (next_change <= now) {
      next_change += gap(random);
    }
    visits.push_back({interval, changed});
  }
  return visits;
}

constexpr std::int64_t kInterval = 3600;

TEST(ChangeRateTest, RegularVisitsFindTheRateOfAPoissonProcess) {
  std::mt19937_64 random(28);
  // From a change every ten visits to two changes per visit: where counting changes (X / T) fails,
  // since a visit sees at most one.
  for (double changes_per_visit : {0.1, 0.5, 1.0, 2.0}) {
    double rate = changes_per_visit / kInterval;
    std::vector<Visit> visits = simulate_visits(rate, 20000, random, [](auto&) { return kInterval; });
    EXPECT_NEAR(estimate_change_rate(visits) / rate, 1.0, 0.08) << changes_per_visit << " changes per visit";
  }
}

TEST(ChangeRateTest, IrregularVisitsFindTheRateOfAPoissonProcess) {
  std::mt19937_64 random(25);
  std::uniform_int_distribution<std::int64_t> interval(600, 6 * kInterval);
  for (double rate : {1.0 / 86400, 1.0 / 3600, 1.0 / 900}) {
    std::vector<Visit> visits = simulate_visits(rate, 20000, random, [&](auto& r) { return interval(r); });
    EXPECT_NEAR(estimate_change_rate(visits) / rate, 1.0, 0.08) << "one change per " << 1 / rate << " s";
  }
}

TEST(ChangeRateTest, RegularVisitsGiveThePapersImprovedEstimator) {
  for (int changed_count : {1, 4, 9, 10}) {
    std::vector<Visit> visits(10, Visit{kInterval, false});
    for (int i = 0; i < changed_count; ++i) {
      visits[static_cast<std::size_t>(i) * 3 % 10].changed = true;
    }
    double n = 10;
    double x = 0;
    for (const Visit& visit : visits) {
      x += visit.changed ? 1 : 0;
    }
    double expected = -std::log((n - x + 0.5) / (n + 0.5)) / kInterval;
    EXPECT_NEAR(estimate_change_rate(visits), expected, expected * 1e-9) << x << " of 10 changed";
  }
}

TEST(ChangeRateTest, NoChangeSeenIsRateZeroAndEveryVisitChangedStaysFinite) {
  std::vector<Visit> never(8, Visit{3600, false});
  EXPECT_EQ(estimate_change_rate(never), 0.0);
  std::vector<Visit> always(8, Visit{3600, true});
  double rate = estimate_change_rate(always);
  EXPECT_TRUE(std::isfinite(rate));
  EXPECT_NEAR(rate, std::log(17.0) / 3600, 1e-12);  // -ln(0.5 / 8.5) / I
}

TEST(ChangeRateTest, VisitsWithoutAnIntervalAreIgnored) {
  EXPECT_EQ(estimate_change_rate({}), 0.0);
  std::vector<Visit> visits = {{0, true}, {-5, true}, {3600, false}, {3600, true}};
  std::vector<Visit> counted = {{3600, false}, {3600, true}};
  EXPECT_EQ(estimate_change_rate(visits), estimate_change_rate(counted));
}

}  // namespace
}  // namespace bloomcrawl::recrawl
