// CrawlRecords (crawl_records.h): the URL records the pipeline writes, checkpoints and replays.
#include "crawler/pipeline/crawl_records.h"

#include <chrono>
#include <functional>
#include <unordered_set>

#include <spdlog/spdlog.h>

#include "crawler/fetch/fetcher.h"
#include "crawler/fetch/payload_digest.h"
#include "crawler/output/page_log.h"
#include "crawler/persist/crawl_checkpoint.h"
#include "crawler/persist/journal_replay.h"
#include "crawler/pipeline/queued_url.h"
#include "crawler/pipeline/revisit_records.h"
#include "records/record_store.h"
#include "records/url_record.h"

namespace bloomcrawl {
namespace {

// Slots of the exact mode's cache of URLs known to be recorded (8 bytes each, 8 MiB): the URLs of
// a crawl of a million pages, and the recent ones of a larger one. With 16,384 URL strings instead,
// most duplicate links of the crawl bench missed the cache, and their lookups in the memtable's
// skip list were the records' largest cost in the crawl (docs/records.md, "The records' cost").
constexpr size_t kRecentUrls = size_t{1} << 20;

// What a fetch found, as the pipeline (PageRecord) or the journal (CompletedRecord) carries it.
struct FetchFacts {
  uint32_t status = 0;
  uint64_t bytes = 0;
  int64_t fetched_ms = 0;  // 0: no request was sent
  std::string_view digest;
  bool truncated = false;
  std::string_view etag;
  std::string_view last_modified;
  std::string_view duplicate_of;
};

// What the outcome `word` of a page with `f` sets in its record (records/record_outcome.h), and
// the record it makes, should the store hold none, from `depth`, `parent` and `admitted_ms`.
RecordOutcome record_outcome(std::string_view word, const FetchFacts& f, uint32_t depth = 0,
                             std::string_view parent = {}, int64_t admitted_ms = 0) {
  RecordOutcome o;
  o.outcome = url_outcome_of(word);
  o.reason = o.outcome == UrlOutcome::kFetched && !is_revisit_word(word) ? "" : std::string(word);
  o.not_modified = word == kNotModifiedWord;
  o.fetched_ms = f.fetched_ms;
  o.http_status = f.status;
  o.body_bytes = f.bytes;
  o.payload_sha1 = sha1_of_payload_digest(f.digest);
  o.truncated = f.truncated;
  o.etag = std::string(f.etag);
  o.last_modified = std::string(f.last_modified);
  o.duplicate_of = std::string(f.duplicate_of);
  o.depth = depth;
  o.parent_hash = parent.empty() ? 0 : url_record_hash(parent);
  o.admitted_ms = admitted_ms;
  return o;
}

void apply_outcome(UrlRecord& r, std::string_view word, const FetchFacts& f) {
  apply_record_outcome(r, record_outcome(word, f));
}

// apply_outcome(), the journal's word of a revisit made the record's (the crawl's) first, then the
// next fetch time (revisit_records.h) when the crawl revisits.
void apply_fetch(UrlRecord& r, std::string_view word, const FetchFacts& facts, const RecrawlConfig& recrawl) {
  const UrlRecord before = r;
  const std::string record_word = record_word_of(before, word, facts.status, facts.digest, facts.fetched_ms);
  apply_outcome(r, record_word, facts);
  if (recrawl.enabled) {
    schedule_next_fetch(r, before, record_word, unix_ms(std::chrono::system_clock::now()), recrawl);
  }
}

UrlRecord queued_record(std::string_view url, uint32_t depth, std::string_view parent, int64_t admitted_ms) {
  return record_made_by(url, RecordOutcome{.depth = depth,
                                           .parent_hash = parent.empty() ? 0 : url_record_hash(parent),
                                           .admitted_ms = admitted_ms});
}

}  // namespace

int64_t unix_ms(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

std::chrono::system_clock::time_point from_unix_ms(int64_t ms) {
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
}

std::filesystem::path records_store_directory(const CrawlerSettings& settings) {
  if (settings.checkpoint.directory.empty()) return settings.output_dir / kOutputRecordStoreDirectory;
  return settings.checkpoint.directory / "records-live";
}

UrlOutcome url_outcome_of(std::string_view word) {
  if (word == fetch_outcome_name(FetchOutcome::kOk) || is_revisit_word(word)) return UrlOutcome::kFetched;
  if (word == kUntrustedNotModified) return UrlOutcome::kFailed;
  for (int o = int(FetchOutcome::kCancelled); o <= int(FetchOutcome::kOtherError); ++o) {
    if (word == fetch_outcome_name(FetchOutcome(o))) return UrlOutcome::kFailed;
  }
  return UrlOutcome::kDropped;
}

CrawlRecords::CrawlRecords(const CrawlerSettings& settings, const CrawlCheckpoint* resume, CrawlStats& stats)
    // Exact mode over records missing every URL admitted before would fetch them all again.
    : exact_(settings.exact_seen_filter && !(resume && resume->records_directory.empty())),
      stats_(stats),
      recrawl_(settings.recrawl),
      directory_(records_store_directory(settings)) {
  std::error_code ec;
  std::filesystem::create_directories(directory_.parent_path(), ec);
  if (resume && !resume->records_directory.empty()) {
    RecordStore::clone(resume->records_directory, directory_);
  } else {
    std::filesystem::remove_all(directory_, ec);
    if (ec) throw CheckpointError(directory_.string(), "records store not removed: " + ec.message());
    if (resume) {
      spdlog::warn("{}: the checkpoint has no URL records (written by an older version): records start empty{}",
                   directory_.string(),
                   settings.exact_seen_filter ? ", and seen_filter.exact stays off for this crawl" : "");
    }
  }
  store_ = std::make_unique<RecordStore>(directory_, kMemoryBudget);
  if (exact_) recent_.resize(kRecentUrls);
}

CrawlRecords::~CrawlRecords() = default;

// A slot holds the whole XXH3-64 of a URL, indexed by its low bits: a URL the records do not hold
// (a false positive of the filter, the case exact mode is for) is taken for recorded only if its
// hash's other 44 bits equal those of the recorded URL in its slot, a chance of 2^-44 (5.7e-14)
// per false positive. 0 marks an empty slot, so a URL whose hash is 0 is always looked up.
bool CrawlRecords::remembered(std::string_view url) const {
  const uint64_t h = url_record_hash(url);
  return !recent_.empty() && h != 0 && recent_[h & (kRecentUrls - 1)] == h;
}

void CrawlRecords::remember(std::string_view url) {
  if (recent_.empty()) return;  // exact mode only
  const uint64_t h = url_record_hash(url);
  recent_[h & (kRecentUrls - 1)] = h;
}

std::vector<bool> CrawlRecords::held(const std::vector<std::string_view>& urls) {
  std::vector<bool> out(urls.size(), false);
  std::vector<std::string_view> lookup;
  std::vector<size_t> index;
  for (size_t i = 0; i < urls.size(); ++i) {
    if (remembered(urls[i])) {
      out[i] = true;
    } else {
      lookup.push_back(urls[i]);
      index.push_back(i);
    }
  }
  if (lookup.empty()) return out;
  const std::vector<std::optional<UrlRecord>> found = store_->get_many(lookup);
  for (size_t k = 0; k < found.size(); ++k) {
    if (!found[k]) continue;
    out[index[k]] = true;
    remember(lookup[k]);
  }
  return out;
}

void CrawlRecords::admit(SeenFilter& filter, const std::vector<std::string_view>& urls,
                         std::vector<InsertOutcome>& outcomes, uint32_t depth, std::string_view parent) {
  const int64_t now_ms = unix_ms(std::chrono::system_clock::now());
  if (!exact_) filter.insert_batch(urls, outcomes);  // the filter's answers are final
  std::lock_guard<std::mutex> lock(mu_);
  if (exact_) {
    filter.insert_batch(urls, outcomes);
    // The "seen" answers (a URL new to the filter is in no record: the lock orders every admission).
    std::vector<std::string_view> asked;
    std::vector<size_t> index;
    for (size_t i = 0; i < urls.size(); ++i) {
      if (outcomes[i] == InsertOutcome::kNew) {
        store_->put(queued_record(urls[i], depth, parent, now_ms));
        remember(urls[i]);  // the next pages' links to it need no lookup
      }
      if (outcomes[i] != InsertOutcome::kSeen) continue;
      asked.push_back(urls[i]);
      index.push_back(i);
    }
    const std::vector<bool> present = held(asked);
    std::unordered_set<std::string_view> rescued;  // a page may link a false positive twice
    for (size_t k = 0; k < asked.size(); ++k) {
      // A URL linked twice by the page, new at its first link, is found by its second lookup: the
      // pending batch holds the put above.
      if (present[k] || !rescued.insert(asked[k]).second) continue;
      outcomes[index[k]] = InsertOutcome::kNew;
      UrlRecord r = queued_record(asked[k], depth, parent, now_ms);
      r.flags |= kRecordRescuedFalsePositive;
      store_->put(r);
      remember(asked[k]);
      stats_.false_positives_rescued.fetch_add(1, std::memory_order_relaxed);
    }
    return;
  }
  for (size_t i = 0; i < urls.size(); ++i) {
    if (outcomes[i] == InsertOutcome::kNew) store_->put(queued_record(urls[i], depth, parent, now_ms));
  }
}

void CrawlRecords::admit_handed_over(SeenFilter& filter, const std::vector<std::string_view>& urls,
                                     std::vector<InsertOutcome>& outcomes, uint32_t depth, std::string_view parent) {
  const int64_t now_ms = unix_ms(std::chrono::system_clock::now());
  std::lock_guard<std::mutex> lock(mu_);
  filter.insert_batch(urls, outcomes);
  std::vector<std::string_view> asked;
  for (size_t i = 0; i < urls.size(); ++i) {
    if (outcomes[i] == InsertOutcome::kNew || (exact_ && outcomes[i] == InsertOutcome::kSeen)) asked.push_back(urls[i]);
  }
  const std::vector<bool> present = held(asked);
  for (size_t k = 0; k < asked.size(); ++k) {
    if (present[k]) continue;
    UrlRecord r = queued_record(asked[k], depth, parent, now_ms);
    apply_outcome(r, kHandedOver, {});
    store_->put(r);
  }
}

void CrawlRecords::ended(const PageRecord& page) {
  const int64_t now_ms = unix_ms(std::chrono::system_clock::now());
  const int64_t fetched_ms = page.fetch_time ? unix_ms(*page.fetch_time) : 0;
  const FetchFacts facts{uint32_t(page.status), page.bytes, fetched_ms,         page.payload_digest,
                         page.truncated,        page.etag,  page.last_modified, page.duplicate_of};
  std::lock_guard<std::mutex> lock(mu_);
  if (!recrawl_.enabled) {
    // A URL is fetched once, so the word does not depend on the record (record_word_of with no
    // capture before): the outcome goes in without a read (docs/records.md, "In the crawl").
    const std::string word = record_word_of(UrlRecord{}, page.outcome, facts.status, facts.digest, fetched_ms);
    store_->update(page.url, record_outcome(word, facts, page.depth, page.parent, now_ms));
    return;
  }
  std::optional<UrlRecord> r = store_->get(page.url);
  if (!r) r = queued_record(page.url, page.depth, page.parent, now_ms);
  apply_fetch(*r, page.outcome, facts, recrawl_);
  store_->put(*r);
}

void CrawlRecords::replay(const JournalReplay& replay) {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t now_ms = unix_ms(std::chrono::system_clock::now());
  for (const AdmittedRecord& a : replay.admitted) {
    const QueuedUrl q = decode_queued_url(a.entry);
    std::optional<UrlRecord> r = store_->get(q.url);
    if (!r) {
      r = queued_record(q.url, a.depth, q.parent, a.admitted_ms != 0 ? a.admitted_ms : now_ms);
      if (q.sitemap && recrawl_.enabled) r->flags |= kRecordSitemap;  // as sitemap_read() marks it
    } else if (a.queued && has_capture(*r)) {
      r->outcome = UrlOutcome::kQueued;  // a revisit queued (the outcomes replayed next may end it)
    } else if (a.queued || r->outcome != UrlOutcome::kQueued) {
      continue;  // the copy holds this admission (and perhaps more)
    }
    if (!a.queued) apply_outcome(*r, a.refusal.empty() ? "refused" : a.refusal, {});
    store_->put(*r);
  }
  for (const CompletedRecord& c : replay.outcomes) {
    std::optional<UrlRecord> r = store_->get(c.url);
    if (!r) r = queued_record(c.url, 0, "", now_ms);
    apply_fetch(
        *r, c.outcome,
        {c.status, c.bytes, c.fetched_ms, c.payload_digest, c.truncated, c.etag, c.last_modified, c.duplicate_of},
        recrawl_);
    store_->put(*r);
    // The digest index as the live crawl left it: a first capture's body indexed (once: a replay
    // over a copy holding it, or a later first capture, keeps the entry there), a duplicate's not.
    if (c.status == 200 && c.duplicate_of.empty() && !r->payload_sha1.empty() && c.fetched_ms != 0 &&
        r->outcome == UrlOutcome::kFetched && !store_->first_capture(r->payload_sha1)) {
      store_->put_first_capture(r->payload_sha1, {.url = c.url, .fetched_ms = c.fetched_ms});
    }
  }
  store_->flush();
}

std::optional<FirstCapture> CrawlRecords::first_capture_of(std::string_view url, std::string_view payload_digest,
                                                           int64_t fetched_ms) {
  const std::string sha1 = sha1_of_payload_digest(payload_digest);
  if (sha1.empty()) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<FirstCapture> first = store_->first_capture(sha1);
  if (!first) {
    store_->put_first_capture(sha1, {.url = std::string(url), .fetched_ms = fetched_ms});
    return std::nullopt;
  }
  if (first->url == url) return std::nullopt;  // the same URL again (a refetch): no duplicate of itself
  return first;
}

std::optional<FirstCapture> CrawlRecords::indexed_capture(std::string_view payload_sha1) {
  if (payload_sha1.empty()) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  return store_->first_capture(payload_sha1);
}

bool CrawlRecords::holds(std::string_view url) {
  std::lock_guard<std::mutex> lock(mu_);
  return store_->get(url).has_value();
}

void CrawlRecords::for_each_queued(const std::function<void(std::string_view url, uint32_t depth)>& visit) {
  store_->scan_all([&](const UrlRecord& r) {
    if (r.outcome == UrlOutcome::kQueued) visit(r.url, r.depth);
    return true;
  });
}

std::optional<UrlRecord> CrawlRecords::capture_of(std::string_view url) {
  std::optional<UrlRecord> r = store_->get(url);
  if (r && !has_capture(*r)) r.reset();
  return r;
}

void CrawlRecords::sitemap_read(std::string_view sitemap_url, const std::vector<SitemapHintText>& hints) {
  std::lock_guard<std::mutex> lock(mu_);
  if (std::optional<UrlRecord> sitemap = store_->get(sitemap_url); sitemap && !(sitemap->flags & kRecordSitemap)) {
    sitemap->flags |= kRecordSitemap;
    store_->put(*sitemap);
  }
  std::vector<std::string_view> urls;
  urls.reserve(hints.size());
  for (const SitemapHintText& h : hints) urls.push_back(h.url);
  std::vector<std::optional<UrlRecord>> found = store_->get_many(urls);
  for (size_t i = 0; i < found.size(); ++i) {
    if (found[i] && take_sitemap_hint(*found[i], hints[i].lastmod, hints[i].changefreq, recrawl_)) {
      store_->put(*found[i]);
    }
  }
}

namespace {

// A capture's next fetch time into `summary`.
void count_due(const UrlRecord& r, int64_t now_ms, int64_t window_ms, CrawlRecords::DueSummary& summary) {
  if (!has_capture(r) || r.next_fetch_ms == 0) return;
  if (summary.next_ms == 0 || r.next_fetch_ms < summary.next_ms) summary.next_ms = r.next_fetch_ms;
  if (r.next_fetch_ms <= now_ms + window_ms) ++summary.within_window;
}

}  // namespace

CrawlRecords::DueRound CrawlRecords::take_due(int64_t now_ms, bool all, int64_t window_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  DueRound round;
  std::vector<UrlRecord> taken;
  store_->scan_all([&](const UrlRecord& r) {
    // Marking a record queued leaves its next fetch time: the summary counts it as due_summary() would.
    count_due(r, now_ms, window_ms, round.summary);
    if (revisit_due(r, now_ms, all)) taken.push_back(r);
    return true;
  });
  round.due.reserve(taken.size());
  for (UrlRecord& r : taken) {
    r.outcome = UrlOutcome::kQueued;  // due no more until its outcome (revisit_due)
    store_->put(r);
    round.due.push_back({std::move(r.url), r.depth, (r.flags & kRecordSitemap) != 0});
  }
  return round;
}

CrawlRecords::DueSummary CrawlRecords::due_summary(int64_t now_ms, int64_t window_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  DueSummary out;
  store_->scan_all([&](const UrlRecord& r) {
    count_due(r, now_ms, window_ms, out);
    return true;
  });
  return out;
}

void CrawlRecords::checkpoint_to(const std::filesystem::path& directory) {
  std::lock_guard<std::mutex> lock(mu_);
  store_->checkpoint_to(directory);
}

void CrawlRecords::persist() {
  std::lock_guard<std::mutex> lock(mu_);
  store_->persist();
}

}  // namespace bloomcrawl
