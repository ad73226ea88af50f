// Crawler: the crawl pipeline. Its stages, in the order a URL meets them:
//   scheduler (the thread in run()): frontier → replay skip → robots.txt check → fetcher
//   fetcher threads → on_fetch_complete(): settle the host's politeness, hand off the result
//   parse workers: a page's links → canonicalize → scope → seen filter (one batch insert per
//   page) → frontier; a robots.txt's rules → robots cache; a sitemap's <loc>s → the same admit
// Rooms it uses: Scope (scope.h), SeenFilter, Frontier, RobotsCache, Fetcher, PageLog and
// WarcWriter (output), CrawlStats (the report's counters), FetchRetries (host_outcome.h),
// RequestTable (requests out at the fetcher or waiting to be sent; each a PageRequest or a
// RobotsRequest, crawl_request.h) and CrawlCheckpointer (checkpoints, the journal, --audit).
// The scheduler dispatches ready URLs while fewer than `max_in_flight` transfers are out; parsing
// runs on its own workers so a slow page never stalls transfers. Redirects are followed here, not
// by libcurl: each Location goes through canonicalization, scope and the seen filter like any
// link, so no page is fetched twice. run() returns when the frontier is exhausted, a limit is
// reached or stop() was called; in every case the in-flight transfers are cancelled or drained
// and the report is final. With CrawlerSettings::checkpoint a crawl killed at any instant
// resumes (Crawler(settings, checkpoint)) without fetching a completed page again.
// Cluster mode (CrawlerSettings::cluster, docs/cluster.md; crawler_cluster.cc): admit() sends the
// links whose hosts other nodes own to their inboxes instead, an inbox thread admits what other
// nodes send here, and run() returns when every node of the cluster is idle and every inbox empty.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "crawler/content/near_duplicate_index.h"
#include "crawler/content/param_learner.h"
#include "crawler/extract/links.h"
#include "crawler/output/status_file.h"
#include "crawler/persist/crawl_checkpoint.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawl_stats.h"
#include "crawler/pipeline/grouped_hosts.h"
#include "crawler/pipeline/host_outcome.h"
#include "crawler/pipeline/request_table.h"
#include "crawler/pipeline/robots_share.h"
#include "crawler/pipeline/scope.h"
#include "crawler/robots/robots_cache.h"
#include "frontier/frontier.h"
#include "seenfilter/seen_filter.h"

namespace bloomcrawl {

class ClusterLink;
class ClusterOutbox;
class CrawlCheckpointer;
class CrawlMonitor;
class JournalBatch;
class PageLog;
class WarcWriter;
struct WarcExchange;
struct PageRecord;
struct QueuedUrl;
struct Url;

class Crawler {
 public:
  // Throws std::invalid_argument naming what is wrong (no valid seed, bad scope pattern...).
  // With `resume`, continues that checkpoint (and the journals after it in
  // settings.checkpoint.directory) instead of starting from the seeds.
  explicit Crawler(CrawlerSettings settings, std::unique_ptr<CrawlCheckpoint> resume = nullptr);
  ~Crawler();
  Crawler(const Crawler&) = delete;
  Crawler& operator=(const Crawler&) = delete;

  // Crawls until done or stopped; returns the report (also what report.json holds).
  nlohmann::json run();

  // Asks run() to stop soon; safe from any thread.
  void stop();

  const CrawlStats& stats() const { return stats_; }

  // The crawl's counters and gauges now, from any thread, before, during or after run(): for the
  // live view (crawler/observe, docs/metrics.md). Cheap (no scan of the filter's bits or of every
  // host), so it may be called every second. crawler_live.cc.
  nlohmann::json live_report() const;
  // Cluster mode, after run(): the merged cluster report (docs/cluster.md); null otherwise.
  const nlohmann::json& cluster_report() const { return cluster_report_; }

 private:
  // Expired robots.txt entries are dropped this often (RobotsCache::erase_expired is O(hosts)).
  static constexpr std::chrono::seconds kRobotsSweepInterval{60};
  // What robots.txt says about a URL now.
  struct RobotsVerdict {
    enum class Kind { kAllowed, kDisallowed, kWait, kGivenUp };
    Kind kind = Kind::kWait;
    std::string rule;                                    // kDisallowed: the deciding rule
    RobotsGiveUp given_up = RobotsGiveUp::kUnavailable;  // kGivenUp: why
  };
  // A link of a page (or a redirect target, a seed, a sitemap) on its way to the seen filter.
  struct Candidate {
    std::string url;
    std::string host;
    LinkKind kind = LinkKind::kAnchor;
    bool sitemap = false;
  };

  static CrawlerSettings normalized(CrawlerSettings s);
  // Scheduler: run() is schedule() then drain().
  void schedule();
  void drain();
  void seed();
  void dispatch(Clock::time_point now, size_t max_in_flight);
  // Whether robots.txt lets `page` be fetched now; otherwise the lease is given back (the host
  // waits for its robots.txt) or dropped with its record.
  bool robots_admit(PageRequest& page, Clock::time_point now);
  // kWait: the host is held and its robots.txt fetch started (once).
  RobotsVerdict robots_verdict(const std::string& host, std::string_view url, Clock::time_point now);
  // The pages.jsonl record of a leased URL that will never be fetched, the lease dropped.
  // True when the record is written and the lease dropped; false when the crawl stops on the
  // failed write, the lease then released.
  bool drop_unfetched(const PageRequest& page, const char* outcome, const std::string& error);
  void submit_page(PageRequest page);
  // A robots.txt fetch, pending from now: a prerequisite of its host in the frontier, so it waits
  // for the host's politeness key like a page; started at once if that key and its share of the
  // in-flight budget (robots_share.h) let it, else by the scheduler when they do.
  void start_robots_fetch(RobotsRequest request);
  void queue_robots_fetch(RobotsRequest request);
  void start_ready_robots_fetches(Clock::time_point now);
  void submit_robots(RobotsRequest request);
  void start_due_robots_fetches(Clock::time_point now);
  // A robots.txt request settled (processed, cancelled or dropped): its pending work is done.
  void robots_work_done();
  // A robots.txt request (a retry) to start at `due`: now if due, else kept waiting in requests_
  // for start_due_robots_fetches().
  void schedule_robots_fetch(RobotsRequest request, Clock::time_point due, Clock::time_point now);

  // Fetcher threads.
  void on_fetch_complete(FetchResult&& result);
  void complete_fetch(CrawlRequest& request, FetchResult& result);
  // complete_fetch() threw: the request ends here, a page with its crawler_error record.
  void abandon_fetch(CrawlRequest& request, const FetchResult& result, const std::string& why);
  // A page whose processing threw: its crawler_error record, and the page done for the
  // checkpointer (inside a gate pass). False when not even the record could be written.
  bool record_crawler_error(const PageRequest& page, const FetchResult& result, const std::string& why);
  void mark_processed(const FetchResult& result);
  void inject_fault(WorkerPath path, std::string_view url) const;
  // Settles the page's host; false when the page is not to be processed (requeued for a retry).
  bool settle_page(const PageRequest& page, const FetchResult& result);
  // Gives back the frontier slot of a robots.txt request whose transfer ended.
  void settle_robots_slot(const RobotsRequest& request, const FetchResult& result);
  size_t in_flight_budget() const;  // transfers the fetcher may have out at once, robots.txt's included
  void group_by_address(const std::string& host, const std::string& ip);

  // Parse workers.
  void parse_worker();
  void process_robots(const RobotsRequest& request, const FetchResult& result);
  // A redirect hop of a robots.txt fetch; true if one was scheduled.
  bool follow_robots_redirect(const RobotsRequest& request, const FetchResult& result);
  RobotsNext apply_robots(const RobotsRequest& request, const FetchResult& result, Clock::time_point now);
  void settle_robots(const RobotsRequest& request, const RobotsNext& next, Clock::time_point now);
  void log_robots_failure(const RobotsRequest& request, const FetchResult& result, const RobotsNext& next,
                          Clock::time_point now);
  void process_page(const PageRequest& page, FetchResult& result);
  void process_html(const FetchResult& result, PageRecord& record);
  // Revisits (crawler_revisit.cc, docs/recrawl.md). queue_due_revisits(): the records due now into
  // the frontier (the seen filter holds them: they are known URLs), journaled like admissions.
  // keep_revisiting(): the end test's veto in recrawl.continuous: queues what is due, or waits
  // for it. prepare_page_fetch(): a revisit's validators (and the record it is compared with).
  // set_page_outcome(): the page's outcome word, a revisit's (revisit_records.h) included.
  // Rounds in cluster mode (docs/cluster.md, "Rounds"): revisit_round_start() how this node's
  // ClusterLink enters the cluster's rounds; revisit_in_round(): recrawl.continuous, a locally idle
  // node's due records queued (at most once a second) in the cluster's round, which it starts when
  // the round is over; keep_revisiting_in_cluster(): after the round's end, whether the node goes on
  // (continuous), joining a later round another node started.
  size_t queue_due_revisits();  // the number queued
  bool keep_revisiting();
  RoundStart revisit_round_start() const;
  bool revisit_in_round(const std::function<bool()>& locally_idle);
  bool keep_revisiting_in_cluster(RoundEnd end);
  bool revisits_continue() const;  // recrawl.continuous, and no stop or failure
  size_t scan_due_revisits();      // queue_due_revisits() at most once a second
  void summarize_due();            // the report's next due time and the count due within the hour
  void prepare_page_fetch(PageRequest& page, FetchRequest& request);
  void set_page_outcome(const PageRequest& page, const FetchResult& result, PageRecord& record);
  // A revisit's WARC revisit record (warc_revisit.h) when the page is one (a 304, or the payload of
  // the record's capture): false when it is not, and the page is archived as content.
  bool archive_revisit(const PageRequest& page, const FetchResult& result);
  void archive(uint64_t id, const WarcExchange& exchange);
  // Content seen (crawler_content.cc, docs/content-seen.md): a 200 body first fetched at another URL
  // makes the page its duplicate; the page archived (a revisit record for a revisit or a duplicate).
  // False when its links are not to be extracted (a duplicate's, or an unchanged revisit's).
  bool see_content(const PageRequest& page, const FetchResult& result, PageRecord& record);
  // The learned parameter rules (restored from the resumed checkpoint's report at first use); a
  // fetched page as their evidence, and its near duplicate looked up (crawler_content.cc).
  ParamLearner& learner();
  bool see_text(const FetchResult& result, PageRecord& record);
  // A link's candidate with its host's learned parameters dropped.
  std::optional<Candidate> learned_candidate(std::string url, std::string host, LinkKind kind);
  // A leased page: dropped as `learned_duplicate` when its URL without the learned parameters is
  // seen, else robots.txt's verdict (robots_admit()). False when it is not to be fetched now.
  bool admit_to_fetch(PageRequest& page, Clock::time_point now);
  void follow_redirect(const PageRequest& page, const FetchResult& result, PageRecord& record);
  void process_sitemap(const PageRequest& page, const FetchResult& result, PageRecord& record);
  void admit_sitemaps(const std::vector<std::string>& urls, const Url* base, uint32_t depth, const std::string& parent);
  // `encoding`: the encoding of the page the link is in (the URL parser's encoding override).
  std::optional<Candidate> candidate(std::string_view href, const Url* base, LinkKind kind,
                                     Encoding encoding = Encoding::kUtf8);
  // Candidates through the seen filter into the frontier; returns how many were queued. All are
  // admitted or, when the frontier fails part-way, the crawl stops (admission_failed(),
  // crawler_admission.cc): with checkpoints this throws CheckpointError and the page stays
  // outstanding for a resume.
  uint32_t admit(std::vector<Candidate>& candidates, uint32_t depth, const std::string& parent, uint32_t hops);
  // Queues one URL new to the filter (true) or records its refusal; a new host it created is added
  // to `new_hosts`, whose robots.txt admit() looks up once every link is queued.
  bool admit_new(const Candidate& c, uint32_t depth, const std::string& parent, uint32_t hops, JournalBatch& batch,
                 std::vector<const Candidate*>& new_hosts);
  uint32_t admission_failed(const std::vector<Candidate>& candidates, const std::vector<InsertOutcome>& outcomes,
                            size_t from, uint32_t depth, const std::string& parent, const JournalBatch& batch,
                            const std::exception& error);

  // Cluster mode (crawler_cluster.cc, docs/cluster.md). Queues the candidates whose hosts other nodes
  // own in the outbox, for their inboxes, and removes them.
  void route_to_owners(std::vector<Candidate>& candidates, uint32_t depth, const std::string& parent, uint32_t hops);
  void start_outbox();
  // mark_processed() of a page whose worker has links still in the outbox: its completion is
  // journaled once they are in Redis (the outbox's thread, in a gate pass), so a crash before that
  // fetches it again and sends them again. False when there is nothing to wait for.
  bool mark_processed_once_sent(const FetchResult& result);
  // Outside any gate pass: waits until what this thread queued since sends_so_far() returned
  // `ticket_before` is in Redis. Throws RedisError when the outbox has failed (the crawl then stops).
  void wait_for_sends(uint64_t ticket_before);
  uint64_t sends_so_far() const;
  // Scheduler thread: a URL this node queued before the cluster grew and whose host another node
  // owns now goes to its owner's inbox instead of being fetched; true if so (docs/cluster.md,
  // "Adding nodes"). When Redis cannot take it the crawl stops (fail()) with the URL still queued.
  bool hand_over(const Lease& lease, const QueuedUrl& q);
  // The inbox thread: admits what other nodes sent, acknowledging it once journaled.
  void receive_from_nodes();
  void admit_from_inbox(const std::vector<InboxEntry>& entries);
  // A seen-only batch (a grow's handover): into the seen filter and the journal, not the frontier.
  void admit_seen(const RoutedBatch& batch);
  // Growing (ClusterSettings::grow): a resumed node sends the URLs its pages.jsonl recorded whose
  // hosts other nodes own now, as seen-only batches; then every --grow node waits for all the old
  // nodes' handovers, so no link to such a URL reaches its new owner before the URL itself.
  void join_grown_cluster();
  void start_inbox();
  void stop_inbox();
  // The scheduler's end test: finished() here, and in cluster mode every node idle in the round,
  // every inbox empty.
  bool crawl_over();
  // Scheduler thread, every second: publishes this node's counters, and stops the crawl when
  // `bloomcrawl stop --cluster` asked it to.
  void tick_cluster();
  // `state`: "running", "stopping" (draining), or a final "done" or "stopped". Failures are logged
  // only: the counters are for people, the crawl does not depend on them.
  void publish_counters(const char* state);
  // At the end of run(): stores `report` in Redis and gathers the merged cluster report.
  void finish_cluster(nlohmann::json& report);

  // THE CLEAN STOP (docs/outcomes.md, "One clean stop"; crawler_failure.cc). Every error that
  // must end the crawl, on any thread, goes to fail(why), `why` naming what failed (a file or
  // directory first, as CheckpointError's message does): an output that could not be written
  // (pages.jsonl, edges, WARC, the journal, a checkpoint, the frontier's store), a stage that
  // threw, the cluster's inbox or outbox giving up. The first reason is kept (failure()); the
  // frontier is closed and the scheduler stops; run() then cancels and requeues the transfers in
  // flight, leaves the pages fetched but not processed outstanding, takes a final checkpoint
  // where the disk allows, and returns a report with crawl.stopped_by "error" and crawl.error
  // `why` (report.json), on which the CLI exits 1. Safe from any thread, any number of times.
  // Never throw past a thread's body or out of run() instead: that is std::terminate, or no
  // report and no final checkpoint.
  void fail(const std::string& why);
  std::string failure() const;
  // Runs `step` (a stage of run(), one item of a worker thread); whatever it throws goes to
  // fail() (a CheckpointError's message as it is, anything else after `where`). True when `step`
  // returned normally.
  bool or_fail(std::string_view where, const std::function<void()>& step);
  // Scheduler thread: fail() on the checkpointer's or the frontier store's sticky failure.
  void fail_on_store_failure();

  // No silent loss (docs/outcomes.md). write_record(): a record of pages.jsonl, counted in the
  // report's outcomes; throws CheckpointError when pages.jsonl cannot take it.
  void write_record(const PageRecord& record);
  bool record_refusal(std::string_view url, std::string_view parent, uint32_t depth, AdmitResult refusal);
  // write_record(), or false after a failed write has stopped the crawl (fail()).
  bool record_or_fail(const PageRecord& record);
  void record_left_queued();

  void work_done();
  bool finished() const;
  void print_progress(bool final_line);
  nlohmann::json report(double seconds) const;
  // For the monitor's thread (crawl_monitor.h): the counters of the status file and the progress
  // line, and report.json mid-crawl.
  CrawlStatus sample_status() const;
  nlohmann::json interim_report() const;

  // Removes the frontier's live store once the frontier (declared after it) has closed it:
  // scratch that nothing reads again (frontier_store_directory(), crawl_settings.h).
  struct RemovedWhenDone {
    explicit RemovedWhenDone(std::filesystem::path p) : path(std::move(p)) {}
    RemovedWhenDone(const RemovedWhenDone&) = delete;
    RemovedWhenDone& operator=(const RemovedWhenDone&) = delete;
    ~RemovedWhenDone();
    std::filesystem::path path;
  };

  CrawlerSettings settings_;
  Scope scope_;
  SeenFilter filter_;
  RemovedWhenDone frontier_store_;
  Frontier frontier_;
  RobotsCache robots_;
  FetchRetries fetch_retries_;
  CrawlStats stats_;
  std::unique_ptr<PageLog> page_log_;
  std::unique_ptr<WarcWriter> warc_;
  std::unique_ptr<CrawlCheckpointer> checkpointer_;
  // content_seen (docs/content-seen.md): the learned parameter rules, and the pages' SimHashes.
  ParamLearner learner_{uint32_t(settings_.content_seen.learn_min_pairs), /*near=*/true};
  std::once_flag learner_restored_;
  NearDuplicateIndex near_duplicates_;
  std::unique_ptr<Fetcher> fetcher_;
  std::unique_ptr<ClusterLink> cluster_;   // cluster mode only
  std::unique_ptr<ClusterOutbox> outbox_;  // cluster mode only; its callbacks use the members above
  std::thread inbox_thread_;
  std::atomic<bool> inbox_exit_{false};
  std::atomic<bool> cluster_stop_{false};               // `bloomcrawl stop --cluster` stopped this node
  std::chrono::steady_clock::time_point last_publish_;  // scheduler thread only
  uint64_t pages_at_publish_ = 0;                       // scheduler thread only
  uint64_t handed_over_ = 0;                            // scheduler thread only: hand_over()'s URLs
  uint64_t seen_handed_over_ = 0;                       // join_grown_cluster()'s URLs
  nlohmann::json cluster_report_;
  GroupedHosts grouped_hosts_;  // hosts already put in their IP's group

  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> failed_{false};
  mutable std::mutex failure_mu_;
  std::string failure_;  // the first output failure
  std::atomic<uint64_t> next_request_id_{1};
  std::atomic<uint32_t> sitemaps_admitted_{0};

  // `pending_` counts requests submitted or waiting and not yet fully processed (links
  // admitted), so "frontier empty and nothing pending" means done.
  RequestTable requests_;
  std::atomic<uint64_t> pending_{0};
  RobotsShare robots_share_{
      RobotsShare::slots_for(size_t(settings_.fetch.threads) * settings_.fetch.transfers_per_thread)};

  std::mutex work_mu_;
  // Two, so that a completion wakes one parse worker and the scheduler, and finished work wakes
  // only the scheduler: one shared variable woke every parse worker for nothing on each event.
  std::condition_variable work_cv_;       // the scheduler (and drain()): something changed
  std::condition_variable completed_cv_;  // parse workers: a completion to process, or exit
  std::deque<CompletedFetch> completed_;
  bool scheduler_wake_ = false;
  bool workers_exit_ = false;
  std::vector<std::thread> workers_;

  bool revisit_all_taken_ = false;                           // --revisit-all: only the first round
  std::chrono::steady_clock::time_point next_revisit_scan_;  // scheduler thread only (continuous)
  uint64_t pages_before_run_ = 0;                            // pages counted by earlier runs of a resumed crawl
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_progress_;
  std::chrono::steady_clock::time_point last_robots_sweep_;  // scheduler thread only
  // Last, so that it is destroyed first: its thread reads the members above until it is stopped.
  std::unique_ptr<CrawlMonitor> monitor_;
};

}  // namespace bloomcrawl
