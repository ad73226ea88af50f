// Revisits as the URL records see them (revisit_records.h): which records are due, the word of a
// revisit's response, the same word from the journal on a replay, and the next fetch time each
// outcome leaves.
#include "crawler/pipeline/revisit_records.h"

#include <gtest/gtest.h>

#include <string>

#include "crawler/fetch/payload_digest.h"
#include "crawler/recrawl/change_rate.h"

namespace bloomcrawl {
namespace {

constexpr int64_t kS = 1000;  // ms

std::string unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(char(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

RecrawlConfig recrawl_config() {
  RecrawlConfig c;
  c.enabled = true;
  c.default_interval_s = 1000;
  c.min_interval_s = 100;
  c.max_interval_s = 100000;
  return c;
}

// A record fetched once at t=10 s, due at 1010 s, at depth 1.
UrlRecord captured() {
  return {.url = "http://a.example/x",
          .outcome = UrlOutcome::kFetched,
          .http_status = 200,
          .depth = 1,
          .last_fetched_ms = 10 * kS,
          .fetch_count = 1,
          .payload_sha1 = unhex("a9993e364706816aba3e25717850c26c9cd0d89d"),  // SHA-1 of "abc"
          .etag = "W/\"1\"",
          .next_fetch_ms = 1010 * kS};
}

FetchResult response(FetchOutcome outcome, long status, std::string digest = "") {
  FetchResult r;
  r.outcome = outcome;
  r.status = status;
  r.payload_digest = std::move(digest);
  return r;
}

TEST(RevisitRecords, TheRecordsDigestReadsBackAsThePayloadDigestOfItsBody) {
  EXPECT_EQ(payload_digest_of_sha1(captured().payload_sha1), sha1_base32_digest("abc"));
  EXPECT_EQ(payload_digest_of_sha1(""), "");
}

TEST(RevisitRecords, OnlyACaptureNotQueuedIsDueAndRevisitAllMakesEveryCaptureDue) {
  const UrlRecord r = captured();
  EXPECT_FALSE(revisit_due(r, 1009 * kS, false));
  EXPECT_TRUE(revisit_due(r, 1010 * kS, false));
  EXPECT_TRUE(revisit_due(r, 11 * kS, true));
  UrlRecord queued = r;
  queued.outcome = UrlOutcome::kQueued;
  EXPECT_FALSE(revisit_due(queued, 2000 * kS, true)) << "a revisit on its way is not due again";
  UrlRecord never = r;
  never.fetch_count = 0;
  never.http_status = 0;
  never.outcome = UrlOutcome::kDropped;
  EXPECT_FALSE(revisit_due(never, 2000 * kS, true)) << "no capture: nothing to revisit";
}

TEST(RevisitRecords, EachResponseToARevisitHasItsWord) {
  const UrlRecord r = captured();
  const std::string same = sha1_base32_digest("abc");
  EXPECT_EQ(revisit_word(&r, response(FetchOutcome::kNotModified, 304)), "not_modified");
  EXPECT_EQ(revisit_word(&r, response(FetchOutcome::kOk, 200, same)), "unchanged");
  EXPECT_EQ(revisit_word(&r, response(FetchOutcome::kOk, 200, sha1_base32_digest("abd"))), "changed");
  EXPECT_EQ(revisit_word(&r, response(FetchOutcome::kOk, 200)), "changed") << "no digest (a cut body): changed";
  EXPECT_EQ(revisit_word(&r, response(FetchOutcome::kOk, 404, same)), "gone");
  EXPECT_EQ(revisit_word(&r, response(FetchOutcome::kOk, 410)), "gone");
  EXPECT_EQ(revisit_word(&r, response(FetchOutcome::kOk, 304)), "untrusted_not_modified") << "no validator sent";
  EXPECT_EQ(revisit_word(nullptr, response(FetchOutcome::kOk, 304)), "untrusted_not_modified") << "never fetched";
  EXPECT_EQ(revisit_word(nullptr, response(FetchOutcome::kOk, 200, same)), "") << "a first fetch";
  EXPECT_EQ(revisit_word(&r, response(FetchOutcome::kTimeout, 0)), "") << "no answer: its fetch outcome";
}

TEST(RevisitRecords, AReplayNamesTheJournalsFetchAsTheCrawlDid) {
  const UrlRecord r = captured();
  const std::string same = sha1_base32_digest("abc");
  EXPECT_EQ(record_word_of(r, "ok", 200, same, 2000 * kS), "unchanged");
  EXPECT_EQ(record_word_of(r, "ok", 200, "sha1:X", 2000 * kS), "changed");
  EXPECT_EQ(record_word_of(r, "ok", 404, "", 2000 * kS), "gone");
  EXPECT_EQ(record_word_of(r, "ok", 304, "", 2000 * kS), "untrusted_not_modified");
  EXPECT_EQ(record_word_of(r, "not_modified", 0, "", 2000 * kS), "not_modified");
  EXPECT_EQ(record_word_of(r, "timeout", 0, "", 2000 * kS), "timeout");
  UrlRecord held = r;  // the copy holds this fetch already
  held.reason = "changed";
  EXPECT_EQ(record_word_of(held, "ok", 200, same, 10 * kS), "changed");
  UrlRecord fresh;
  EXPECT_EQ(record_word_of(fresh, "ok", 200, same, 2000 * kS), "ok");
}

// `word` applied at `at_s` to the record as apply_outcome would leave it.
UrlRecord after(const UrlRecord& before, std::string_view word, int64_t at_s,
                UrlOutcome outcome = UrlOutcome::kFetched) {
  UrlRecord r = before;
  r.outcome = outcome;
  r.last_fetched_ms = at_s * kS;
  r.fetch_count = before.fetch_count + 1;
  r.http_status = before.http_status ? before.http_status : 200;
  schedule_next_fetch(r, before, word, at_s * kS, recrawl_config());
  return r;
}

int64_t interval_s(const UrlRecord& r) { return (r.next_fetch_ms - r.last_fetched_ms) / kS; }

TEST(RevisitRecords, UnchangedLengthensChangedShortensGoneWaitsTheMaximum) {
  const UrlRecord r = captured();  // its interval: 1000 s
  EXPECT_EQ(interval_s(after(r, "not_modified", 1010)), 1400);
  EXPECT_EQ(interval_s(after(r, "unchanged", 1010)), 1400);
  EXPECT_EQ(interval_s(after(r, "changed", 1010)), 800);
  EXPECT_EQ(interval_s(after(r, "gone", 1010)), 100000);
  EXPECT_EQ(interval_s(after(r, "untrusted_not_modified", 1010, UrlOutcome::kFailed)), 100);
  EXPECT_EQ(interval_s(after(r, "timeout", 1010, UrlOutcome::kFailed)), 100);
  UrlRecord first;
  first.depth = 1;
  EXPECT_EQ(interval_s(after(first, "ok", 5)), 1000) << "a first fetch: the default interval";
}

TEST(RevisitRecords, IntervalsStayWithinTheBoundsAndSeedsWithinADay) {
  UrlRecord r = captured();
  for (int i = 0; i < 40; ++i) r = after(r, "unchanged", r.next_fetch_ms / kS);
  EXPECT_EQ(interval_s(r), 100000);
  // From the maximum, the estimator needs 52 visits that all find a change to reach the minimum
  // here: 10 before a change shows in the last 16 visits at all, then ~15% shorter at each.
  for (int i = 0; i < 51; ++i) r = after(r, "changed", r.next_fetch_ms / kS);
  EXPECT_GT(interval_s(r), 100);
  r = after(r, "changed", r.next_fetch_ms / kS);
  EXPECT_EQ(interval_s(r), 100);
  UrlRecord seed = captured();
  seed.depth = 0;
  for (int i = 0; i < 40; ++i) seed = after(seed, "unchanged", seed.next_fetch_ms / kS);
  EXPECT_EQ(interval_s(seed), 86400);
}

TEST(RevisitRecords, EachRevisitJoinsTheVisitsAndTheEstimatorTakesOverAtTheThird) {
  const UrlRecord r1 = after(captured(), "unchanged", 1010);
  EXPECT_EQ(r1.visits, (std::vector<RecordVisit>{{1000, false}}));
  EXPECT_EQ(interval_s(r1), 1400) << "one visit: the fixed factors";
  const UrlRecord r2 = after(r1, "changed", 2410);
  EXPECT_EQ(r2.visits, (std::vector<RecordVisit>{{1000, false}, {1400, true}}));
  EXPECT_EQ(interval_s(r2), 1120);
  const UrlRecord r3 = after(r2, "not_modified", 3530);
  ASSERT_EQ(r3.visits, (std::vector<RecordVisit>{{1000, false}, {1400, true}, {1120, false}}));
  const std::vector<recrawl::Visit> seen = {{1000, false}, {1400, true}, {1120, false}};
  const double mean_change_s = 1 / recrawl::estimate_change_rate(seen);
  EXPECT_EQ(interval_s(r3), std::llround(mean_change_s)) << "three visits: 1/λ of Cho and Garcia-Molina's estimate";
  EXPECT_NE(interval_s(r3), 1568) << "not the fixed factors' 1120 x 1.4";

  UrlRecord replayed = r3;  // the same fetch applied again adds no visit
  schedule_next_fetch(replayed, r3, "not_modified", 9000 * kS, recrawl_config());
  EXPECT_EQ(replayed.visits, r3.visits);
  EXPECT_TRUE(after(r3, "gone", 5000).visits.empty()) << "a page gone starts its history over";
  UrlRecord many = r3;
  for (int i = 0; i < 20; ++i) many = after(many, "unchanged", many.next_fetch_ms / kS);
  EXPECT_EQ(many.visits.size(), kRecordVisits);
  EXPECT_FALSE(many.visits.back().changed);
  EXPECT_EQ(interval_s(many), 100000) << "16 visits and no change: the maximum";
}

TEST(RevisitRecords, OnlyANewFetchMovesTheNextFetchTime) {
  const UrlRecord r = captured();
  UrlRecord replayed = r;  // the same fetch applied again
  schedule_next_fetch(replayed, r, "unchanged", 5000 * kS, recrawl_config());
  EXPECT_EQ(replayed.next_fetch_ms, r.next_fetch_ms);
  UrlRecord stopped = r;
  stopped.outcome = UrlOutcome::kDropped;
  schedule_next_fetch(stopped, r, "not_fetched_at_stop", 5000 * kS, recrawl_config());
  EXPECT_EQ(stopped.next_fetch_ms, r.next_fetch_ms) << "left queued at a stop: still due";
  UrlRecord refused = r;
  refused.outcome = UrlOutcome::kDropped;
  schedule_next_fetch(refused, r, "robots_disallowed", 5000 * kS, recrawl_config());
  EXPECT_EQ(refused.next_fetch_ms, 5100 * kS) << "refused: tried again after the minimum";
}

// A sitemap's hints (docs/recrawl.md, rule 7), with recrawl_config(): min 100 s, max 100000 s.
TEST(RevisitRecords, ASitemapsHintsAreStoredAndOnlyBringTheNextFetchForward) {
  UrlRecord r = captured();  // fetched at 10 s, due at 1010 s
  EXPECT_TRUE(take_sitemap_hint(r, " 1970-01-01T00:00:05Z ", "Hourly", recrawl_config()));
  EXPECT_EQ(r.sitemap_lastmod_s, 5);
  EXPECT_EQ(r.sitemap_changefreq, 2);
  EXPECT_EQ(r.next_fetch_ms, 1010 * kS) << "a lastmod before the fetch and an hourly ceiling above the interval";
  EXPECT_FALSE(take_sitemap_hint(r, "1970-01-01T00:00:05Z", "hourly", recrawl_config())) << "the same word again";

  UrlRecord modified = captured();
  take_sitemap_hint(modified, "1970-01-01T00:00:20Z", "", recrawl_config());
  EXPECT_EQ(modified.next_fetch_ms, 110 * kS) << "modified after the fetch: due the minimum after it";

  UrlRecord always = captured();
  take_sitemap_hint(always, "", "always", recrawl_config());
  EXPECT_EQ(always.next_fetch_ms, 110 * kS) << "changefreq always: the minimum";
  EXPECT_EQ(always.sitemap_changefreq, 1);

  UrlRecord never = captured();
  take_sitemap_hint(never, "", "never", recrawl_config());
  EXPECT_EQ(never.next_fetch_ms, 1010 * kS) << "a hint never pushes a page later";

  UrlRecord junk = captured();
  junk.sitemap_changefreq = 3;
  EXPECT_TRUE(take_sitemap_hint(junk, "last Tuesday", "fortnightly", recrawl_config()));
  EXPECT_EQ(junk.sitemap_lastmod_s, 0) << "no W3C Datetime: no hint";
  EXPECT_EQ(junk.sitemap_changefreq, 0) << "the sitemap's latest word replaces the one before";
  EXPECT_EQ(junk.next_fetch_ms, 1010 * kS);

  UrlRecord queued = captured();
  queued.outcome = UrlOutcome::kQueued;  // a revisit on its way: its outcome schedules it
  take_sitemap_hint(queued, "", "always", recrawl_config());
  EXPECT_EQ(queued.next_fetch_ms, 1010 * kS);
  EXPECT_EQ(queued.sitemap_changefreq, 1);
  UrlRecord fresh;  // admitted, never fetched: the hints wait for its first fetch
  take_sitemap_hint(fresh, "2026-12-01", "daily", recrawl_config());
  EXPECT_EQ(fresh.next_fetch_ms, 0);
  EXPECT_EQ(fresh.sitemap_lastmod_s, 1796083200);
}

TEST(RevisitRecords, TheNextFetchFollowsTheRecordsSitemapHints) {
  UrlRecord hourly;
  hourly.depth = 1;
  hourly.sitemap_changefreq = 2;
  EXPECT_EQ(interval_s(after(hourly, "ok", 5)), 1000) << "the ceiling of an hour is above the default";
  RecrawlConfig wide = recrawl_config();
  wide.default_interval_s = 10000;
  UrlRecord first = hourly;
  first.outcome = UrlOutcome::kFetched;
  first.http_status = 200;
  first.last_fetched_ms = 5 * kS + 123;  // a fetch time within a second: the interval stays whole
  schedule_next_fetch(first, hourly, "ok", 5 * kS, wide);
  EXPECT_EQ(first.next_fetch_ms - first.last_fetched_ms, 3600 * kS) << "a first fetch capped at an hour";
  UrlRecord changed = captured();
  changed.sitemap_lastmod_s = 2000;  // said modified after the revisit at 1010 s
  EXPECT_EQ(after(changed, "unchanged", 1010).next_fetch_ms, 1110 * kS);
  UrlRecord gone = captured();
  gone.sitemap_changefreq = 1;
  EXPECT_EQ(interval_s(after(gone, "gone", 1010)), 100000) << "a page gone waits the maximum, hints or not";
}

}  // namespace
}  // namespace bloomcrawl
