#include "crawler/pipeline/revisit_records.h"

#include <algorithm>
#include <vector>

#include "crawler/recrawl/recrawl_schedule.h"
#include "crawler/recrawl/w3c_datetime.h"

namespace bloomcrawl {
namespace {

static_assert(kRecordVisits >= recrawl::kEstimateVisits, "a record keeps every visit the estimate reads");

recrawl::ScheduleLimits limits_of(const RecrawlConfig& c) {
  return {c.default_interval_s, c.min_interval_s, c.max_interval_s, c.adaptive};
}

std::string word_of(recrawl::RevisitOutcome outcome) { return std::string(recrawl::revisit_outcome_name(outcome)); }

// This revisit into the record's visits (the last kRecordVisits kept; a page gone starts over:
// docs/recrawl.md, rule 5), and the history the schedule reads, oldest first.
std::vector<recrawl::Visit> add_visit(UrlRecord& record, const UrlRecord& before, recrawl::RevisitOutcome outcome) {
  if (outcome == recrawl::RevisitOutcome::kGone) {
    record.visits.clear();
    return {};
  }
  const int64_t since_s = std::max<int64_t>((record.last_fetched_ms - before.last_fetched_ms) / 1000, 0);
  record.visits.push_back({since_s, outcome == recrawl::RevisitOutcome::kChanged});
  if (record.visits.size() > kRecordVisits) record.visits.erase(record.visits.begin());
  std::vector<recrawl::Visit> history;
  history.reserve(record.visits.size());
  for (const RecordVisit& v : record.visits) history.push_back({v.interval_s, v.changed});
  return history;
}

recrawl::SitemapHint hint_of(const UrlRecord& r) {
  recrawl::SitemapHint hint;
  if (r.sitemap_lastmod_s != 0) hint.lastmod_s = r.sitemap_lastmod_s;
  if (r.sitemap_changefreq != 0) hint.changefreq = recrawl::ChangeFreq(r.sitemap_changefreq - 1);
  return hint;
}

// The record's next fetch time for `interval_s` after its last fetch, as its sitemap hints adjust
// it (in whole seconds from the fetch time, so that the interval read back from the record is
// the one chosen).
int64_t hinted_next_fetch_ms(const UrlRecord& r, int64_t interval_s, const recrawl::ScheduleLimits& limits) {
  const int64_t fetched_s = r.last_fetched_ms / 1000;
  return r.last_fetched_ms + (recrawl::next_due_time(fetched_s, interval_s, hint_of(r), limits) - fetched_s) * 1000;
}

}  // namespace

bool is_revisit_word(std::string_view word) {
  return word == kNotModifiedWord || word == kUnchangedWord || word == kChangedWord || word == kGoneWord;
}

bool revisit_due(const UrlRecord& record, int64_t now_ms, bool all) {
  if (record.outcome == UrlOutcome::kQueued || !has_capture(record)) return false;
  return all || (record.next_fetch_ms != 0 && record.next_fetch_ms <= now_ms);
}

bool response_received(const FetchResult& result) {
  return result.outcome == FetchOutcome::kOk || result.outcome == FetchOutcome::kNotModified;
}

std::string revisit_word(const UrlRecord* previous, const FetchResult& result) {
  if (result.outcome == FetchOutcome::kOk && result.status == 304) return std::string(kUntrustedNotModified);
  if (!previous || !has_capture(*previous) || !response_received(result)) return {};
  if (result.outcome == FetchOutcome::kNotModified) return std::string(kNotModifiedWord);
  const std::string stored = payload_digest_of_sha1(previous->payload_sha1);
  return word_of(recrawl::classify_revisit(int(result.status), !stored.empty() && stored == result.payload_digest));
}

std::string record_word_of(const UrlRecord& before, std::string_view word, uint32_t status, std::string_view digest,
                           int64_t fetched_ms) {
  if (word != "ok" || fetched_ms == 0) return std::string(word);
  if (before.last_fetched_ms == fetched_ms) {  // a fetch the record holds: as it was recorded
    return is_revisit_word(before.reason) ? before.reason : std::string(word);
  }
  if (status == 304) return std::string(kUntrustedNotModified);
  if (!has_capture(before)) return std::string(word);
  const std::string stored = payload_digest_of_sha1(before.payload_sha1);
  return word_of(recrawl::classify_revisit(int(status), !stored.empty() && stored == digest));
}

void schedule_next_fetch(UrlRecord& record, const UrlRecord& before, std::string_view word, int64_t now_ms,
                         const RecrawlConfig& recrawl) {
  const recrawl::ScheduleLimits limits = limits_of(recrawl);
  const bool new_fetch = record.last_fetched_ms != 0 && record.last_fetched_ms != before.last_fetched_ms;
  if (!new_fetch) {
    // A revisit refused (robots.txt, a limit) is tried again after the minimum; one left queued at a
    // stop stays due.
    if (record.outcome == UrlOutcome::kDropped && has_capture(record) && word != "not_fetched_at_stop") {
      record.next_fetch_ms = now_ms + limits.min_interval_s * 1000;
    }
    return;
  }
  int64_t interval_s = limits.default_interval_s;
  if (record.outcome != UrlOutcome::kFetched || word == kUntrustedNotModified) {
    interval_s = limits.min_interval_s;  // no answer to trust: tried again soon
  } else if (has_capture(before) && is_revisit_word(word)) {
    const int64_t current_s = before.next_fetch_ms > before.last_fetched_ms
                                  ? (before.next_fetch_ms - before.last_fetched_ms) / 1000
                                  : limits.default_interval_s;
    const recrawl::RevisitOutcome outcome = word == kGoneWord      ? recrawl::RevisitOutcome::kGone
                                            : word == kChangedWord ? recrawl::RevisitOutcome::kChanged
                                                                   : recrawl::RevisitOutcome::kUnchanged;
    interval_s = recrawl::next_interval(current_s, add_visit(record, before, outcome), outcome, limits);
  }
  if (word == kGoneWord) {  // the maximum, whatever the seed cap and the hints say (rule 5)
    record.next_fetch_ms = record.last_fetched_ms + interval_s * 1000;
    return;
  }
  // Seeds (depth 0, which sitemaps from robots.txt share) are where new URLs come from.
  if (record.depth == 0) interval_s = recrawl::cap_for_seed(interval_s, limits);
  record.next_fetch_ms = hinted_next_fetch_ms(record, interval_s, limits);
}

bool take_sitemap_hint(UrlRecord& record, std::string_view lastmod, std::string_view changefreq,
                       const RecrawlConfig& recrawl) {
  const UrlRecord before = record;
  const std::optional<int64_t> lastmod_s = recrawl::parse_w3c_datetime(lastmod);
  record.sitemap_lastmod_s = lastmod_s && *lastmod_s > 0 ? *lastmod_s : 0;  // none before 1970 matters
  const std::optional<recrawl::ChangeFreq> freq = recrawl::parse_changefreq(changefreq);
  record.sitemap_changefreq = freq ? uint8_t(int(*freq) + 1) : 0;
  if (record.outcome != UrlOutcome::kQueued && has_capture(record) && record.next_fetch_ms > record.last_fetched_ms &&
      record.reason != kGoneWord) {
    const int64_t interval_s = (record.next_fetch_ms - record.last_fetched_ms) / 1000;
    record.next_fetch_ms = std::min(record.next_fetch_ms, hinted_next_fetch_ms(record, interval_s, limits_of(recrawl)));
  }
  return record != before;
}

}  // namespace bloomcrawl
