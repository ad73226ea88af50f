// CrawlCheckpointer: a crawl's checkpoints, as a room of its own that the pipeline calls.
// A generation is cut at the start, every interval and at the end; between them a journal records
// what changed, so a crawl killed at any instant resumes without fetching a completed page again.
// It owns what that takes: the gate that makes each journaled change atomic with respect to a cut,
// the journal writer (swapped only inside a cut), the pages outstanding between dispatch and
// processing, what a resume replayed from the journals, the thread that writes a generation off
// the critical path, and its counters; and, with --audit, the exact URL set and its false
// positives, which a checkpoint carries too.
// The pipeline calls it where it changes checkpointed state: inside a gate() pass it reports each
// page dispatched, fetched, requeued and processed, and journals the links it admits; the
// scheduler thread calls start(), maybe_checkpoint() and finish(). With no checkpoint directory
// only the gate and the audit do anything. Formats: crawl_checkpoint.h, journal.h and
// docs/checkpoint-format.md, which says why each piece is needed.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "crawler/persist/audit_set.h"
#include "crawler/persist/crawl_checkpoint.h"
#include "crawler/persist/journal.h"
#include "crawler/persist/journal_records.h"
#include "crawler/pipeline/crawl_checkpoint_gate.h"
#include "crawler/pipeline/crawl_records.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawl_stats.h"
#include "frontier/frontier.h"
#include "seenfilter/seen_filter.h"

namespace bloomcrawl {

class PageLog;
class WarcWriter;
struct FetchResult;
struct JournalReplay;
struct PageLogEnds;
struct WarcMark;

class CrawlCheckpointer {
 public:
  // The filter and frontier a crawl starts with: `resume`'s, or empty ones.
  static SeenFilter make_filter(const CrawlerSettings& s, const CrawlCheckpoint* resume);
  static Frontier make_frontier(const CrawlerSettings& s, const CrawlCheckpoint* resume);

  // Everything passed by reference must outlive the checkpointer; `page_log` and `warc` may be
  // null. Each journal group commit makes them durable before the records of the pages they hold
  // (journal.h, "durable before done").
  CrawlCheckpointer(const CrawlerSettings& settings, SeenFilter& filter, Frontier& frontier, CrawlStats& stats,
                    PageLog* page_log, WarcWriter* warc, std::unique_ptr<CrawlCheckpoint> resume);
  ~CrawlCheckpointer();  // waits for a generation being written
  CrawlCheckpointer(const CrawlCheckpointer&) = delete;
  CrawlCheckpointer& operator=(const CrawlCheckpointer&) = delete;

  bool enabled() const { return !settings_.checkpoint.directory.empty(); }
  bool resuming() const { return resume_ != nullptr; }
  CheckpointGate& gate() { return gate_; }
  // The crawl's URL records: copied into every generation, rebuilt by a resume (crawl_records.h).
  CrawlRecords& records() { return *records_; }

  // Scheduler thread. start(): resumes (if resuming) and cuts the first generation; a fresh
  // crawl's is empty and its journal records the seeds, a resumed one's folds the replayed
  // journals in. maybe_checkpoint(): a stats record every second, a generation when one is due.
  // finish(): the final generation, from which a resume continues. A resume calls
  // record_refusal for each admitted URL it cannot queue again (a depth or page limit lowered
  // since the checkpoint), before the first generation is cut, so that each gets its record.
  using RefusalRecorder =
      std::function<void(std::string_view host, std::string_view entry, uint32_t depth, AdmitResult why)>;
  void start(const RefusalRecorder& record_refusal);
  void maybe_checkpoint();
  void finish();

  // Inside a gate() pass. Admitted records go to the journal only while journaling().
  bool journaling() const { return journal_ != nullptr; }
  void journal(const JournalBatch& batch);
  // A page's admitted links: written at once (JournalWriter::append_now), not held for the group
  // commit. A URL's `dispatched` record is written at once too, and a resume requeues only URLs
  // whose admission it finds: held and lost (a kill -9, or a group commit that failed), the
  // admission would leave its dispatched URL, and every link of it, never fetched. The records of
  // links refused at admission can reach the disk before their pages.jsonl lines: a resume refuses
  // (and records) again those of pages it fetches again; docs/checkpoint-format.md, "Durable
  // before done".
  void journal_admissions(const JournalBatch& batch);
  // Inside a gate() pass: makes every record journaled so far durable (fdatasync) before the caller
  // lets go of their only other copy; throws CheckpointError when it cannot. No journal: a no-op.
  void sync_journal();
  // Skips a page the journal says was completed before a crash; true if skipped.
  bool skip_replayed(const Lease& lease, std::string_view url);
  void on_page_dispatched(uint64_t id, const FrontierUrl& entry, std::string_view url);
  void on_page_fetched(uint64_t id);
  // The request ended without a record and its URL is back in the frontier (a stop, a retry).
  void on_page_requeued(uint64_t id);
  // Where a page's outputs ended: its exchange in the WARC file; its line in pages.jsonl (written
  // for every record, kept for a page being fetched). Its completed record carries them.
  void on_page_archived(uint64_t id, WarcMark mark);
  void on_record_written(std::string_view url, const PageLogEnds& ends);
  // The page's 200 body was first fetched at `first` (docs/content-seen.md): its completed record
  // says so, so that a replay marks its URL record and leaves the digest index to `first`.
  void on_page_duplicate(uint64_t id, std::string first);
  // The page's completed record: written at once when it carries where its outputs ended (a kill
  // -9 keeps it, and a resume trusts it only if they are on disk), else held for the group commit.
  // The record is completed_record_of() the page's result; its URL, outputs and duplicate_of are
  // the checkpointer's. Cluster mode keeps it until the page's links are sent.
  void on_page_processed(uint64_t id, const FetchResult& result) { on_page_processed(id, completed_record_of(result)); }
  void on_page_processed(uint64_t id, CompletedRecord record);
  // What a page's completed record keeps of its fetch.
  static CompletedRecord completed_record_of(const FetchResult& result);
  // --audit: the exact set's view of the filter's answers for `keys` (a no-op without --audit).
  void audit_outcomes(const std::vector<std::string_view>& keys, const std::vector<InsertOutcome>& outcomes,
                      JournalBatch& batch);

  uint64_t refetched_after_crash() const { return refetched_after_crash_.load(); }
  const AuditSet* audit() const { return audit_.get(); }
  // The audit's count, or (audit off) the one the resumed checkpoint carried.
  uint64_t audit_false_positives() const { return audit_ ? audit_->false_positives() : saved_audit_false_positives_; }
  nlohmann::json report() const;  // report.json's "checkpoint"
  // The generations' counts, durations and bytes, from any thread while the crawl runs (report()
  // reads what the scheduler thread writes unlocked): for the live view (crawler/observe).
  nlohmann::json totals() const;
  // Scheduler thread: empty, or the first checkpoint or journal write that failed, naming the
  // file (sticky, unlike last_failure()). The previous generation stays current; the crawler
  // stops on it (docs/outcomes.md).
  std::string failure() const;
  // From any thread, inside the gate pass in which it happened: the seen filter now holds URLs
  // that neither the frontier nor the journal has (a page's links half admitted, `why` saying
  // why). No generation is committed from then on, whose filter copy could hold them; a resume
  // continues from the last one committed before and its journals, which fetch the page again.
  // A resume that throws part-way through its replay (start()) refuses them the same way.
  void refuse_generations(const std::string& why);

  // Why the newest checkpoint attempt failed (a write or sync of its files, or its journal having
  // disabled itself), empty once one succeeds. A crawl that ends with it set has no durable final
  // state: a resume continues from the last generation written and its journals.
  std::string last_failure() const;

 private:
  struct Outstanding {
    FrontierUrl entry;
    std::string url;       // entry's URL, decoded
    bool fetched = false;  // frontier_.complete() done, processing not finished
    bool written = false;  // its pages.jsonl line is written, `outputs` complete
    CompletedOutputs outputs;
    std::string duplicate_of;
  };

  void resume_from_checkpoint(const RefusalRecorder& record_refusal);
  void apply_replay(JournalReplay& replay, const RefusalRecorder& record_refusal);
  // The resumed checkpoint's frontier was lost (CrawlCheckpoint::frontier_lost): every record still
  // queued, after the replay, is queued again.
  void requeue_from_records(const RefusalRecorder& record_refusal);
  void take_checkpoint(bool wait);
  // The pause: fills what must be exact at the cut, swaps in `journal`, returns the frontier's cut.
  DiskCheckpointCut cut_checkpoint(CrawlCheckpoint& cp, std::unique_ptr<JournalWriter>& journal);
  // After the pause, on the writer thread: the frontier's checkpoint directory and the filter copy.
  void finish_checkpoint(CrawlCheckpoint& cp, DiskCheckpointCut& frontier, JournalWriter& journal);
  nlohmann::json saved_stats() const;  // CrawlStats as a checkpoint or stats record keeps them
  void checkpoint_failed(const std::string& why);
  void throw_if_refused() const;  // CheckpointError after refuse_generations()
  void sync_outputs() const;      // the journals' JournalWriter::SyncOutputs
  // Under outstanding_mu_: forgets the request, returning it.
  Outstanding take_outstanding(std::unordered_map<uint64_t, Outstanding>::iterator it);

  const CrawlerSettings& settings_;
  SeenFilter& filter_;
  Frontier& frontier_;
  CrawlStats& stats_;
  PageLog* const page_log_;
  WarcWriter* const warc_;
  std::unique_ptr<CrawlCheckpoint> resume_;
  std::unique_ptr<CrawlRecords> records_;
  std::unique_ptr<AuditSet> audit_;
  uint64_t saved_audit_false_positives_ = 0;  // set at construction, before any reader's thread

  CheckpointGate gate_;
  std::unique_ptr<JournalWriter> journal_;
  // The last generation cut: written by the scheduler, read by report() from the monitor's thread too.
  std::atomic<uint64_t> generation_{0};
  std::mutex outstanding_mu_;
  std::unordered_map<uint64_t, Outstanding> outstanding_;           // page requests by id, until processed
  std::unordered_map<std::string_view, uint64_t> outstanding_ids_;  // by Outstanding::url
  // Scheduler thread only: from the journal replay.
  std::unordered_set<std::string> replayed_done_;      // completed before the crash: not fetched again
  std::unordered_set<std::string> crash_outstanding_;  // in flight at the crash: a fetch is a refetch
  std::atomic<uint64_t> resumes_{0};
  std::atomic<uint64_t> refetched_after_crash_{0};
  std::atomic<uint64_t> outputs_lost_{0};  // completed records a resume found without their outputs
  std::vector<std::string> journal_problems_;

  std::thread writer_;
  std::atomic<bool> writing_{false};
  std::chrono::steady_clock::time_point last_checkpoint_;
  std::chrono::steady_clock::time_point last_stats_record_;
  uint64_t pages_at_last_checkpoint_ = 0;
  mutable std::mutex written_mu_;
  struct {
    uint64_t taken = 0;
    uint64_t failed = 0;
    double last_pause_ms = 0;
    double max_pause_ms = 0;
    // After the pause, the frontier's lock held again to end the cut (FrontierCheckpointStats).
    double frontier_lock_ms = 0;
    uint64_t last_bytes = 0;
    uint64_t total_bytes = 0;
    double last_seconds = 0;   // the last generation written: from its cut to its commit
    double seconds_total = 0;  // of every generation written
    std::string last_manifest;
    std::string last_failure;
  } written_;
  std::string failure_;  // under written_mu_
  std::string refused_;  // under written_mu_: refuse_generations()'s reason
};

}  // namespace bloomcrawl
