// The recrawl schedule's rules (docs/recrawl.md), one visit at a time.
#include "crawler/recrawl/recrawl_schedule.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace bloomcrawl::recrawl {
namespace {

constexpr ScheduleLimits kLimits{};  // the config's defaults: 7 days, 1 hour .. 90 days, adaptive

// Visits a page `count` times, each visit when the schedule said, finding what `changed` says;
// returns the intervals chosen after each visit.
template <class Changed>
std::vector<std::int64_t> run_schedule(int count, Changed changed, const ScheduleLimits& limits = kLimits) {
  std::int64_t interval = limits.default_interval_s;
  std::vector<Visit> history;
  std::vector<std::int64_t> chosen;
  for (int i = 0; i < count; ++i) {
    bool change = changed(interval);
    history.push_back({interval, change});
    interval =
        next_interval(interval, history, change ? RevisitOutcome::kChanged : RevisitOutcome::kNotModified, limits);
    chosen.push_back(interval);
  }
  return chosen;
}

TEST(RecrawlScheduleTest, APageThatChangesEveryVisitConvergesToTheMinimum) {
  std::vector<std::int64_t> chosen = run_schedule(40, [](std::int64_t) { return true; });
  for (std::size_t i = 1; i < chosen.size(); ++i) {
    EXPECT_LE(chosen[i], chosen[i - 1]) << "visit " << i;
  }
  EXPECT_EQ(chosen.back(), kLimits.min_interval_s);
}

TEST(RecrawlScheduleTest, APageThatNeverChangesConvergesToTheMaximum) {
  std::vector<std::int64_t> chosen = run_schedule(40, [](std::int64_t) { return false; });
  for (std::size_t i = 1; i < chosen.size(); ++i) {
    EXPECT_GE(chosen[i], chosen[i - 1]) << "visit " << i;
  }
  EXPECT_EQ(chosen.back(), kLimits.max_interval_s);
}

TEST(RecrawlScheduleTest, APoissonPageSettlesNearItsMeanTimeBetweenChanges) {
  constexpr double kRate = 1.0 / 86400;  // a change a day on average
  std::mt19937_64 random(28);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::vector<std::int64_t> chosen = run_schedule(400, [&](std::int64_t interval) {
    return uniform(random) < -std::expm1(-kRate * static_cast<double>(interval));
  });
  EXPECT_NEAR(static_cast<double>(chosen.back()) * kRate, 1.0, 0.25);
}

TEST(RecrawlScheduleTest, FirstRevisitsStepByNutchsFactors) {
  std::vector<Visit> one = {{604800, false}};
  EXPECT_EQ(next_interval(604800, one, RevisitOutcome::kUnchanged, kLimits), std::llround(604800 * 1.4));
  EXPECT_EQ(next_interval(604800, one, RevisitOutcome::kNotModified, kLimits), std::llround(604800 * 1.4));
  one[0].changed = true;
  EXPECT_EQ(next_interval(604800, one, RevisitOutcome::kChanged, kLimits), std::llround(604800 * 0.8));
  // A first fetch (no revisit yet) has nothing to compare with: the default, whatever came before.
  EXPECT_EQ(next_interval(7200, {}, RevisitOutcome::kChanged, kLimits), kLimits.default_interval_s);
}

TEST(RecrawlScheduleTest, WithoutAdaptiveEveryPageKeepsTheDefault) {
  ScheduleLimits fixed = kLimits;
  fixed.adaptive = false;
  std::vector<std::int64_t> changing = run_schedule(
      10, [](std::int64_t) { return true; }, fixed);
  std::vector<std::int64_t> steady = run_schedule(
      10, [](std::int64_t) { return false; }, fixed);
  EXPECT_EQ(changing, std::vector<std::int64_t>(10, fixed.default_interval_s));
  EXPECT_EQ(steady, std::vector<std::int64_t>(10, fixed.default_interval_s));
}

TEST(RecrawlScheduleTest, AGonePageIsCheckedAtTheMaximum) {
  std::vector<Visit> busy(6, Visit{3600, true});
  EXPECT_EQ(next_interval(3600, busy, RevisitOutcome::kGone, kLimits), kLimits.max_interval_s);
}

TEST(RecrawlScheduleTest, ClampKeepsEveryIntervalWithinTheLimits) {
  EXPECT_EQ(clamp_interval(10, kLimits), kLimits.min_interval_s);
  EXPECT_EQ(clamp_interval(1e12, kLimits), kLimits.max_interval_s);
  EXPECT_EQ(clamp_interval(std::numeric_limits<double>::infinity(), kLimits), kLimits.max_interval_s);
  EXPECT_EQ(clamp_interval(-std::numeric_limits<double>::infinity(), kLimits), kLimits.min_interval_s);
  EXPECT_EQ(clamp_interval(std::numeric_limits<double>::quiet_NaN(), kLimits), kLimits.max_interval_s);
  EXPECT_EQ(clamp_interval(7200.4, kLimits), 7200);
}

TEST(RecrawlScheduleTest, SeedsAndSitemapsAreRevisitedAtMostADayApart) {
  EXPECT_EQ(cap_for_seed(kLimits.max_interval_s, kLimits), 86400);
  EXPECT_EQ(cap_for_seed(7200, kLimits), 7200);
  ScheduleLimits slow = kLimits;
  slow.min_interval_s = std::int64_t{2} * 86400;  // a minimum above a day wins
  EXPECT_EQ(cap_for_seed(slow.max_interval_s, slow), slow.min_interval_s);
}

TEST(RecrawlScheduleTest, OutcomesAreClassifiedFromStatusAndDigest) {
  EXPECT_EQ(classify_revisit(304, false), RevisitOutcome::kNotModified);
  EXPECT_EQ(classify_revisit(200, true), RevisitOutcome::kUnchanged);
  EXPECT_EQ(classify_revisit(200, false), RevisitOutcome::kChanged);
  EXPECT_EQ(classify_revisit(404, false), RevisitOutcome::kGone);
  EXPECT_EQ(classify_revisit(410, true), RevisitOutcome::kGone);
  EXPECT_EQ(revisit_outcome_name(RevisitOutcome::kNotModified), "not_modified");
  EXPECT_EQ(revisit_outcome_name(RevisitOutcome::kUnchanged), "unchanged");
  EXPECT_EQ(revisit_outcome_name(RevisitOutcome::kChanged), "changed");
  EXPECT_EQ(revisit_outcome_name(RevisitOutcome::kGone), "gone");
}

TEST(RecrawlScheduleTest, ChangefreqIsReadLikeTheSitemapsProtocolWritesIt) {
  EXPECT_EQ(parse_changefreq(" Daily\n"), ChangeFreq::kDaily);
  EXPECT_EQ(parse_changefreq("always"), ChangeFreq::kAlways);
  EXPECT_EQ(parse_changefreq("NEVER"), ChangeFreq::kNever);
  EXPECT_EQ(parse_changefreq("fortnightly"), std::nullopt);
  EXPECT_EQ(parse_changefreq("  "), std::nullopt);
}

TEST(RecrawlScheduleTest, SitemapHintsBringAPageForwardButNeverPushItBack) {
  constexpr std::int64_t kFetched = 1'700'000'000;
  constexpr std::int64_t kWeek = 604800;
  EXPECT_EQ(next_due_time(kFetched, kWeek, {}, kLimits), kFetched + kWeek);
  // Modified after our fetch: due as soon as the minimum allows; before it: no news.
  EXPECT_EQ(next_due_time(kFetched, kWeek, {.lastmod_s = kFetched + 60}, kLimits), kFetched + kLimits.min_interval_s);
  EXPECT_EQ(next_due_time(kFetched, kWeek, {.lastmod_s = kFetched - 60}, kLimits), kFetched + kWeek);
  EXPECT_EQ(next_due_time(kFetched, kWeek, {.changefreq = ChangeFreq::kDaily}, kLimits), kFetched + 86400);
  EXPECT_EQ(next_due_time(kFetched, kWeek, {.changefreq = ChangeFreq::kAlways}, kLimits),
            kFetched + kLimits.min_interval_s);
  EXPECT_EQ(next_due_time(kFetched, kWeek, {.changefreq = ChangeFreq::kYearly}, kLimits), kFetched + kWeek);
  EXPECT_EQ(next_due_time(kFetched, 7200, {.changefreq = ChangeFreq::kNever}, kLimits), kFetched + 7200);
}

}  // namespace
}  // namespace bloomcrawl::recrawl
