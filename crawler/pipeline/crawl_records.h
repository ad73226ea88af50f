// CrawlRecords: the crawl's URL records (records/, docs/records.md, "In the crawl"), as the
// pipeline keeps them: one record per URL the seen filter admitted, written kQueued at admission
// and updated from every record pages.jsonl gets (fetched, failed, dropped with its reason).
// Where the store lives: `records-live` in the checkpoint directory, copied into every generation
// as records-G (RecordStore::checkpoint_to: SST files hard-linked) and rebuilt from one at a resume
// (the generation's copy, then the journals since replayed over it: replay()), so the records
// always end at the journal's state; without a checkpoint directory, `records` in the output
// directory, written out at the end of the crawl (persist()). Either is made anew when a crawl
// starts fresh. RocksDB's LOCK file keeps a second crawl out of it.
// Exact mode (seen_filter.exact): admit() confirms every "maybe seen" answer of the filter against
// the records, in one batched lookup per page behind a small cache of links seen recently (a
// site's navigation repeats on every page); a URL the records do not hold is admitted after all
// and counted (CrawlStats::false_positives_rescued).
// Every store failure throws CheckpointError "DIR: records store: ..." (sticky): the callers send
// it to the crawl's one clean stop. Thread-safe: one lock orders every read-modify-write.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawl_stats.h"
#include "frontier/frontier_types.h"
#include "records/first_capture.h"
#include "records/url_record.h"
#include "seenfilter/seen_filter.h"

namespace bloomcrawl {

class RecordStore;
struct CrawlCheckpoint;
struct JournalReplay;
struct PageRecord;

// The live store's directory (see above).
std::filesystem::path records_store_directory(const CrawlerSettings& settings);

// Unix milliseconds: the records' times (and the journal's, for them).
int64_t unix_ms(std::chrono::system_clock::time_point t);
std::chrono::system_clock::time_point from_unix_ms(int64_t ms);

// The reason of a URL record that a grown cluster's former owner of its host recorded instead.
inline constexpr std::string_view kHandedOver = "handed_over";

// The outcome word a frontier refusal is recorded with: the config field that caused it.
std::string refusal_outcome(AdmitResult refusal);

// The record kind of a pages.jsonl outcome word: "ok" is kFetched, a fetch outcome
// (fetch_outcome_name) kFailed, anything else (robots, limits, a stop) kDropped.
UrlOutcome url_outcome_of(std::string_view outcome_word);

class CrawlRecords {
 public:
  // Memtables and block cache of the live store.
  static constexpr size_t kMemoryBudget = size_t{64} << 20;

  // Opens the live store: a writable copy of `resume`'s records, or an empty one. Throws
  // CheckpointError naming the directory when it cannot.
  CrawlRecords(const CrawlerSettings& settings, const CrawlCheckpoint* resume, CrawlStats& stats);
  ~CrawlRecords();
  CrawlRecords(const CrawlRecords&) = delete;
  CrawlRecords& operator=(const CrawlRecords&) = delete;

  bool exact() const { return exact_; }
  const std::filesystem::path& directory() const { return directory_; }

  // A page's candidate `urls` (found on `parent`, queued at `depth`) into `filter`, its answers in
  // `outcomes`: each kNew gets its kQueued record. In exact mode a kSeen the records do not hold
  // becomes kNew (rescued); the filter is asked under the records' lock then, so that a URL two
  // workers offer at once is new to one and held by the records for the other. A throw (the store
  // failed) leaves `outcomes` the filter's and some of the records written.
  void admit(SeenFilter& filter, const std::vector<std::string_view>& urls, std::vector<InsertOutcome>& outcomes,
             uint32_t depth, std::string_view parent);
  // A grown cluster's seen-only batch (docs/cluster.md, "Adding nodes"): URLs the node that owned
  // their hosts before has recorded, into `filter`; each this node's records do not hold gets a
  // kDropped record, reason kHandedOver, so that exact mode takes it as seen.
  void admit_handed_over(SeenFilter& filter, const std::vector<std::string_view>& urls,
                         std::vector<InsertOutcome>& outcomes, uint32_t depth, std::string_view parent);
  // The digest index (docs/content-seen.md) for a 200 body fetched at `url` with `payload_digest`
  // ("sha1:BASE32"): the first capture of the same body at another URL, or nothing when the body
  // is new (the index holds `url` from now on), is the URL's own or has no digest. Checkpointed
  // and replayed with the records: replay() indexes the body of each completed first capture.
  std::optional<FirstCapture> first_capture_of(std::string_view url, std::string_view payload_digest,
                                               int64_t fetched_ms);
  // The digest index's first capture of the body whose raw SHA-1 is `payload_sha1`, without
  // indexing anything: where that payload was archived whole. Nothing when it is not indexed.
  std::optional<FirstCapture> indexed_capture(std::string_view payload_sha1);
  // Whether the records hold `url` (every URL the seen filter admitted has one): an exact answer.
  bool holds(std::string_view url);
  // A record pages.jsonl got: the URL's outcome.
  void ended(const PageRecord& page);
  // A resume: the admissions and outcomes of the journals since the checkpoint, over its copy.
  // Idempotent for what the copy holds already (taken after the cut, it may hold some of them).
  void replay(const JournalReplay& replay);
  // Visits each record still queued, in key order, in bounded memory; `visit` may call the other
  // members (no lock is held).
  void for_each_queued(const std::function<void(std::string_view url, uint32_t depth)>& visit);
  // Revisits (revisit_records.h): the record of `url` if it holds a capture; the records due at
  // `now_ms` (every capture with `all`), each marked queued as it is taken so that it is not due
  // again until its outcome, with the summary of the same scan; the summary alone: of the
  // captures, the earliest next fetch time (0: none; one queued already is in the past) and how
  // many fall due by `now_ms` + `window_ms`. Each reads every record once: per round, not per page.
  struct Due {
    std::string url;
    uint32_t depth = 0;
    bool sitemap = false;  // kRecordSitemap: read again as a sitemap
  };
  struct DueSummary {
    int64_t next_ms = 0;
    uint64_t within_window = 0;
  };
  struct DueRound {
    std::vector<Due> due;
    DueSummary summary;
  };
  std::optional<UrlRecord> capture_of(std::string_view url);
  // A sitemap read (with recrawl on): its record marked kRecordSitemap, so that a revisit reads it
  // as one, and each of its URLs' <lastmod> and <changefreq> into the URL's record
  // (take_sitemap_hint), for the URLs these records hold (a cluster node: its own hosts').
  struct SitemapHintText {
    std::string url;  // canonical
    std::string_view lastmod, changefreq;
  };
  void sitemap_read(std::string_view sitemap_url, const std::vector<SitemapHintText>& hints);
  DueRound take_due(int64_t now_ms, bool all, int64_t window_ms);
  DueSummary due_summary(int64_t now_ms, int64_t window_ms);
  // Every record put so far, into `directory` (which must not exist).
  void checkpoint_to(const std::filesystem::path& directory);
  // Without checkpoints, at the end: every record in the directory's files.
  void persist();

 private:
  // Under mu_: the URLs among `urls` the cache or the store hold.
  std::vector<bool> held(const std::vector<std::string_view>& urls);
  bool remembered(std::string_view url) const;  // under mu_: in the cache
  void remember(std::string_view url);          // under mu_

  const bool exact_;
  CrawlStats& stats_;
  const RecrawlConfig recrawl_;
  std::filesystem::path directory_;
  std::mutex mu_;
  std::unique_ptr<RecordStore> store_;
  // Exact mode: URLs known to be in the records, as their XXH3-64, direct-mapped by hash (a miss
  // costs a lookup).
  std::vector<uint64_t> recent_;
};

}  // namespace bloomcrawl
