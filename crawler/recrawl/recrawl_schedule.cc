#include "crawler/recrawl/recrawl_schedule.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace bloomcrawl::recrawl {

std::string_view revisit_outcome_name(RevisitOutcome outcome) {
  switch (outcome) {
    case RevisitOutcome::kNotModified: return "not_modified";
    case RevisitOutcome::kUnchanged: return "unchanged";
    case RevisitOutcome::kChanged: return "changed";
    case RevisitOutcome::kGone: return "gone";
  }
  return "changed";
}

RevisitOutcome classify_revisit(int http_status, bool payload_digest_matches) {
  if (http_status == 304) {
    return RevisitOutcome::kNotModified;
  }
  if (http_status == 404 || http_status == 410) {
    return RevisitOutcome::kGone;
  }
  return payload_digest_matches ? RevisitOutcome::kUnchanged : RevisitOutcome::kChanged;
}

std::int64_t clamp_interval(double interval_s, const ScheduleLimits& limits) {
  // NaN and infinities (a rate of 0 gives 1/0) land on the bounds, never in a cast.
  if (!(interval_s >= static_cast<double>(limits.min_interval_s))) {
    return std::isnan(interval_s) ? limits.max_interval_s : limits.min_interval_s;
  }
  if (interval_s >= static_cast<double>(limits.max_interval_s)) {
    return limits.max_interval_s;
  }
  return static_cast<std::int64_t>(std::llround(interval_s));
}

std::int64_t next_interval(std::int64_t current_interval_s, std::span<const Visit> history, RevisitOutcome outcome,
                           const ScheduleLimits& limits) {
  if (outcome == RevisitOutcome::kGone) {
    return limits.max_interval_s;
  }
  if (!limits.adaptive || history.empty()) {  // a first fetch has nothing to compare with
    return clamp_interval(static_cast<double>(limits.default_interval_s), limits);
  }
  if (history.size() >= kMinVisitsForEstimate) {
    double rate = estimate_change_rate(history.last(std::min(history.size(), kEstimateVisits)));
    return rate > 0 ? clamp_interval(1.0 / rate, limits) : limits.max_interval_s;
  }
  double factor = outcome == RevisitOutcome::kChanged ? kChangedFactor : kUnchangedFactor;
  return clamp_interval(static_cast<double>(current_interval_s) * factor, limits);
}

std::int64_t cap_for_seed(std::int64_t interval_s, const ScheduleLimits& limits) {
  return std::min(interval_s, std::max(kSeedMaxIntervalS, limits.min_interval_s));
}

std::optional<ChangeFreq> parse_changefreq(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n";
  std::size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) {
    return std::nullopt;
  }
  text = text.substr(first, text.find_last_not_of(kSpace) - first + 1);
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
  constexpr std::array<std::pair<std::string_view, ChangeFreq>, 7> kNames = {{
      {"always", ChangeFreq::kAlways},
      {"hourly", ChangeFreq::kHourly},
      {"daily", ChangeFreq::kDaily},
      {"weekly", ChangeFreq::kWeekly},
      {"monthly", ChangeFreq::kMonthly},
      {"yearly", ChangeFreq::kYearly},
      {"never", ChangeFreq::kNever},
  }};
  for (const auto& [name, value] : kNames) {
    if (lower == name) {
      return value;
    }
  }
  return std::nullopt;
}

namespace {

// The longest interval a <changefreq> allows; "never" (archived pages) allows the maximum.
std::int64_t changefreq_ceiling(ChangeFreq changefreq, const ScheduleLimits& limits) {
  constexpr std::int64_t kHour = 3600;
  constexpr std::int64_t kDay = 24 * kHour;
  switch (changefreq) {
    case ChangeFreq::kAlways: return limits.min_interval_s;
    case ChangeFreq::kHourly: return kHour;
    case ChangeFreq::kDaily: return kDay;
    case ChangeFreq::kWeekly: return 7 * kDay;
    case ChangeFreq::kMonthly: return 30 * kDay;
    case ChangeFreq::kYearly: return 365 * kDay;
    case ChangeFreq::kNever: break;
  }
  return limits.max_interval_s;
}

}  // namespace

std::int64_t next_due_time(std::int64_t last_fetch_s, std::int64_t interval_s, const SitemapHint& hint,
                           const ScheduleLimits& limits) {
  if (hint.lastmod_s && *hint.lastmod_s > last_fetch_s) {
    return last_fetch_s + limits.min_interval_s;  // changed since we fetched it: as soon as allowed
  }
  if (hint.changefreq) {
    interval_s =
        std::min(interval_s, clamp_interval(static_cast<double>(changefreq_ceiling(*hint.changefreq, limits)), limits));
  }
  return last_fetch_s + interval_s;
}

}  // namespace bloomcrawl::recrawl
