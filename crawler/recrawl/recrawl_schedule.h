// The recrawl schedule (docs/recrawl.md): when a known URL is due again, as plain functions of what
// its visits found. No clock and no I/O: callers pass times and histories, so every rule is a unit test.
//
// Contract:
// - Every interval returned lies in [min_interval_s, max_interval_s] (clamp_interval), except that
//   seeds and sitemaps are further capped at a day (kSeedMaxIntervalS) when the maximum is longer.
// - Without `adaptive`, a page's interval is default_interval_s whatever its visits found; with
//   it, so is the interval after a first fetch (an empty history: nothing to compare with).
// - With `adaptive`, a page with fewer than kMinVisitsForEstimate revisits steps from its current
//   interval by Nutch's fixed factors (unchanged ×1.4, changed ×0.8); from then on the interval is
//   the mean time between changes, 1/λ, with λ from estimate_change_rate() over its last
//   kEstimateVisits revisits (none changed: the maximum).
// - A page gone (404/410) is checked again at the maximum interval; its history is not consulted.
// - Sitemap hints: a <lastmod> later than the last fetch makes the page due now; <changefreq> is
//   a ceiling on the interval (never a floor: a page seen changing more often keeps its rate).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "crawler/recrawl/change_rate.h"

namespace bloomcrawl::recrawl {

// What a revisit found (pages.jsonl's outcomes, docs/recrawl.md "Outcomes").
enum class RevisitOutcome {
  kNotModified,  // 304 to a conditional request: no body
  kUnchanged,    // 200 whose payload digest equals the stored one
  kChanged,      // 200 with another digest (or no stored digest)
  kGone,         // 404 or 410
};

std::string_view revisit_outcome_name(RevisitOutcome outcome);

// How a revisit is classified from the response: status and whether the payload digest matches.
RevisitOutcome classify_revisit(int http_status, bool payload_digest_matches);

// The config's `recrawl` section, as the schedule needs it (config/README.md).
struct ScheduleLimits {
  std::int64_t default_interval_s = 604800;
  std::int64_t min_interval_s = 3600;
  std::int64_t max_interval_s = 7776000;
  bool adaptive = true;
};

// Nutch's AdaptiveFetchSchedule defaults: db.fetch.schedule.adaptive.inc_rate 0.4, dec_rate 0.2.
constexpr double kUnchangedFactor = 1.4;
constexpr double kChangedFactor = 0.8;
// Revisits needed before the estimator replaces the fixed factors, and the most recent ones it
// reads: a page's behaviour drifts, and 16 visits put the estimate's error near 1/sqrt(16).
constexpr std::size_t kMinVisitsForEstimate = 3;
constexpr std::size_t kEstimateVisits = 16;
// Seeds and sitemaps are revisited at least this often (when the maximum allows it).
constexpr std::int64_t kSeedMaxIntervalS = 86400;

std::int64_t clamp_interval(double interval_s, const ScheduleLimits& limits);

// The interval after a visit: `current_interval_s` is the one that led to it, `history` the page's
// revisits oldest first, the last of them being this visit (empty for a first fetch).
std::int64_t next_interval(std::int64_t current_interval_s, std::span<const Visit> history, RevisitOutcome outcome,
                           const ScheduleLimits& limits);

// A seed's or a sitemap's interval: next_interval's, capped at a day.
std::int64_t cap_for_seed(std::int64_t interval_s, const ScheduleLimits& limits);

// <changefreq> values of the sitemaps.org protocol 0.9.
enum class ChangeFreq { kAlways, kHourly, kDaily, kWeekly, kMonthly, kYearly, kNever };

// The value of a <changefreq> element, case and surrounding whitespace ignored; nothing if unknown.
std::optional<ChangeFreq> parse_changefreq(std::string_view text);

struct SitemapHint {
  std::optional<ChangeFreq> changefreq;
  std::optional<std::int64_t> lastmod_s;  // Unix seconds (w3c_datetime.h reads <lastmod>)
};

// The time the page is due again, given the time it was last fetched and the interval the schedule
// chose, adjusted by what a sitemap says of it.
std::int64_t next_due_time(std::int64_t last_fetch_s, std::int64_t interval_s, const SitemapHint& hint,
                           const ScheduleLimits& limits);

}  // namespace bloomcrawl::recrawl
