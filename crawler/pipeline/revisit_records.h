// Revisits as the URL records see them (docs/recrawl.md, "Revisits in the crawl"): which records
// are due, what a revisit's response is called, and the next fetch time each outcome leaves in its
// record. Plain functions of a record and a response (no store, no clock): crawl_records.cc and
// crawler_revisit.cc call them, and every rule is a unit test (tests/crawler/pipeline).
//
// Contract:
// - A record is a revisit's subject when it holds a capture: fetch_count > 0 and a response kept
//   (http_status != 0). Only such records are ever due, and only they get validators.
// - revisit_word() names the response to a revisit: "not_modified" (a 304 to the validators sent),
//   "unchanged" (a payload digest equal to the record's own), "changed", "gone" (404, 410), or
//   kUntrustedNotModified for a 304 no validator asked for (also for a URL never fetched).
//   Responses that are no answer at all (a timeout, ...) keep their fetch outcome word.
// - schedule_next_fetch() sets next_fetch_ms after apply_outcome() gave the record its outcome:
//   only a new fetch moves it (a replay of a fetch the record holds changes nothing). The record's
//   sitemap hints (docs/recrawl.md, rule 7) adjust it, except for a page gone. A revisit with a
//   response also joins the record's visits (the last kRecordVisits; a page gone starts over),
//   from which the schedule estimates the page's change rate once it has a few.
// - take_sitemap_hint() stores what a sitemap says of the URL in its record (a sitemap's latest
//   word replaces the one before, absent hints included) and, for a capture waiting for its next
//   fetch, brings that fetch forward as the hints ask (never later).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "config/config.h"
#include "crawler/fetch/fetcher.h"
#include "crawler/fetch/payload_digest.h"
#include "records/record_outcome.h"  // has_capture
#include "records/url_record.h"

namespace bloomcrawl {

inline constexpr std::string_view kNotModifiedWord = "not_modified";
inline constexpr std::string_view kUnchangedWord = "unchanged";
inline constexpr std::string_view kChangedWord = "changed";
inline constexpr std::string_view kGoneWord = "gone";
// A 304 to a request that sent no validator: an error recorded, never taken as "not modified".
inline constexpr std::string_view kUntrustedNotModified = "untrusted_not_modified";

// One of the four words a revisit with a response is recorded as.
bool is_revisit_word(std::string_view word);

// Whether a record is due for a revisit at `now_ms` (`all`: --revisit-all, every capture is due).
// A record queued already (a revisit on its way) is never due.
bool revisit_due(const UrlRecord& record, int64_t now_ms, bool all);

// The word of the response `result` to a fetch of a URL whose record was `previous` (nullptr: no
// capture, a first fetch). Empty when the fetch is no revisit and no untrusted 304: the caller
// keeps its fetch outcome word.
std::string revisit_word(const UrlRecord* previous, const FetchResult& result);

// A fetch that brought a response: kOk, or a 304 to validators (kNotModified).
bool response_received(const FetchResult& result);

// After an outcome: `record` as apply_outcome() left it, `before` as it was. `word` is the
// outcome word applied (pages.jsonl's or the journal's); `now_ms` the time for outcomes that bring
// no fetch time (a revisit refused by robots.txt or a limit: tried again after min_interval_s).
void schedule_next_fetch(UrlRecord& record, const UrlRecord& before, std::string_view word, int64_t now_ms,
                         const RecrawlConfig& recrawl);

// A sitemap's <lastmod> and <changefreq> texts for the record's URL into `record`; true if the
// record changed. Texts that are no W3C Datetime or no changefreq value are no hint.
bool take_sitemap_hint(UrlRecord& record, std::string_view lastmod, std::string_view changefreq,
                       const RecrawlConfig& recrawl);

// The journal's word of a fetch (fetch_outcome_name: "ok", "not_modified") as a record's word,
// given the record before it: a replay classifies a revisit as the crawl did.
std::string record_word_of(const UrlRecord& before, std::string_view word, uint32_t status, std::string_view digest,
                           int64_t fetched_ms);

}  // namespace bloomcrawl
