// Crawler: the crawl pipeline.
//   fetcher threads → (completion) → parse workers: extract links → canonicalize → scope/robots
//   → seen filter (one batch insert per page) → frontier → scheduler → fetcher.
// The scheduler (the thread that calls run()) dispatches ready URLs to the fetcher while fewer
// than `max_in_flight` transfers are out; parsing runs on its own workers so a slow page never
// stalls transfers. Redirects are followed here, not by libcurl: each Location goes through
// canonicalization, scope and the seen filter like any link, so no page is fetched twice.
// run() returns when the frontier is exhausted, a limit is reached or stop() was called; in every
// case the in-flight transfers are cancelled or drained and the report is final.
// Checkpoints (CrawlerSettings::checkpoint): a generation is cut at the start, every interval and
// at the end; between them a journal records what changed, so a crawl killed at any instant
// resumes (Crawler(settings, checkpoint)) without fetching a completed page again. The pipeline
// side of it is crawl_checkpoint_pipeline.cc; the files are crawl_checkpoint.h and journal.h.
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
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "crawler/persist/audit_set.h"
#include "crawler/url/canonical.h"
#include "crawler/persist/crawl_checkpoint.h"
#include "crawler/pipeline/crawl_checkpoint_gate.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawl_stats.h"
#include "crawler/fetch/fetcher.h"
#include "crawler/pipeline/host_outcome.h"
#include "crawler/persist/journal.h"
#include "crawler/extract/links.h"
#include "crawler/output/page_log.h"
#include "crawler/pipeline/scope.h"
#include "crawler/url/url.h"
#include "crawler/output/warc_writer.h"
#include "frontier/frontier.h"
#include "crawler/robots/robots_cache.h"
#include "seenfilter/seen_filter.h"

namespace bloomcrawl {

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

 private:
  enum class RequestKind { kPage, kRobots };
  struct Request {
    RequestKind kind = RequestKind::kPage;
    Lease lease;               // kPage
    std::string host;          // kRobots: the host held while its robots.txt is fetched
    std::string origin;        // kRobots: "scheme://host[:port]", the robots cache key
    std::string robots_url;    // kRobots: the URL fetched (follows redirects)
    uint32_t hops = 0;         // kRobots: redirects followed to get here
    uint32_t attempt = 0;      // kRobots: earlier attempts that failed
  };
  static constexpr uint32_t kRobotsAttempts = 3;
  struct Completed {
    Request request;
    FetchResult result;
  };

  static CrawlerSettings normalized(CrawlerSettings s);
  void seed();
  void admit_seed(const std::string& url);
  void dispatch(Clock::time_point now, size_t max_in_flight);
  void start_robots_fetch(const std::string& host, const std::string& origin, std::string url,
                          uint32_t hops, uint32_t attempt);
  void start_due_robots_fetches(Clock::time_point now);
  // A robots.txt request (a retry or a redirect hop) to start at `due`: now if due, else queued
  // for start_due_robots_fetches(); next_robots_fetch_time() is when the scheduler must wake.
  void schedule_robots_fetch(Request request, Clock::time_point due, Clock::time_point now);
  std::optional<Clock::time_point> next_robots_fetch_time();
  void on_fetch_complete(FetchResult&& result);
  void parse_worker();
  void process_page(const Request& request, FetchResult& result);
  void process_robots(const Request& request, const FetchResult& result);
  void archive(const FetchResult& result);
  void group_by_address(const std::string& host, const std::string& ip);
  void follow_redirect(const Request& request, const FetchResult& result, PageRecord& record);
  // Links of one page (or one redirect target) through scope, the seen filter and the frontier.
  struct Candidate {
    std::string url;
    std::string host;
    LinkKind kind = LinkKind::kAnchor;
    bool sitemap = false;
  };
  std::optional<Candidate> candidate(std::string_view href, const Url* base, LinkKind kind);
  void admit_sitemaps(const std::vector<std::string>& urls, const Url* base, uint32_t depth,
                      const std::string& parent);
  void process_sitemap(const Request& request, const FetchResult& result, PageRecord& record);
  uint32_t admit(std::vector<Candidate>& candidates, uint32_t depth, const std::string& parent,
                 uint32_t hops);
  bool robots_allows(const std::string& host, std::string_view url, Clock::time_point now,
                     bool* need_fetch, std::string* rule);
  // True when this 429/503 response should be fetched again: counts the URL's retries, at most
  // settings_.backoff.max_retries; any other outcome forgets the URL's count.
  bool take_backoff_retry(const std::string& url, const HostOutcome& outcome);
  void work_done();
  bool finished() const;
  void print_progress(bool final_line);
  nlohmann::json report(double seconds) const;

  // Checkpoints and the journal (crawl_checkpoint_pipeline.cc).
  struct Outstanding {
    FrontierUrl entry;
    bool fetched = false;  // frontier_.complete() done, processing not finished
  };
  static SeenFilter make_filter(const CrawlerSettings& s, const CrawlCheckpoint* resume);
  static Frontier make_frontier(const CrawlerSettings& s, const CrawlCheckpoint* resume);
  bool checkpointing() const { return !settings_.checkpoint.directory.empty(); }
  void resume_from_checkpoint();
  void maybe_checkpoint();
  void take_checkpoint(bool wait);
  // The pause: fills what must be exact at the cut, swaps in `journal`, returns the frontier's image.
  FrontierImage cut_checkpoint(CrawlCheckpoint& cp, std::unique_ptr<JournalWriter>& journal);
  // After the pause, on the writer thread: the filter copy and the frontier's bytes.
  void finish_checkpoint(CrawlCheckpoint& cp, const FrontierImage& frontier, JournalWriter& journal);
  void journal(const JournalBatch& batch);
  // A page handed to the fetcher / fetched / processed; called inside a gate_ pass.
  void on_page_dispatched(uint64_t id, const FrontierUrl& entry, std::string_view url);
  void on_page_fetched(uint64_t id);
  // The request ended without a record and its URL is back in the frontier (a stop, a retry).
  void on_page_requeued(uint64_t id);
  void on_page_processed(uint64_t id, const FetchResult& result);
  // Skips a page the journal says was completed before a crash; true if skipped.
  bool skip_replayed(const Lease& lease, std::string_view url);
  void audit_outcomes(const std::vector<Candidate>& candidates, const std::vector<InsertOutcome>& outcomes,
                      JournalBatch& batch);
  nlohmann::json checkpoint_report() const;
  nlohmann::json saved_stats() const;  // CrawlStats as a checkpoint or stats record keeps them

  CrawlerSettings settings_;
  Scope scope_;
  SeenFilter filter_;
  Frontier frontier_;
  RobotsCache robots_;
  CrawlStats stats_;
  std::unique_ptr<PageLog> page_log_;
  std::unique_ptr<WarcWriter> warc_;
  std::unique_ptr<Fetcher> fetcher_;
  std::mutex grouped_mu_;
  std::unordered_set<std::string> grouped_hosts_;  // hosts already put in their IP's group

  std::atomic<bool> stop_requested_{false};
  std::atomic<uint64_t> next_request_id_{1};
  std::atomic<uint32_t> sitemaps_admitted_{0};

  // Requests submitted to the fetcher, by id. `pending_` counts fetches submitted and not yet
  // fully processed (links admitted), so "frontier empty and nothing pending" means done.
  std::mutex requests_mu_;
  std::unordered_map<uint64_t, Request> requests_;
  std::atomic<uint64_t> pending_{0};
  std::vector<std::pair<Clock::time_point, Request>> robots_waiting_;  // due time; under requests_mu_
  std::mutex backoff_retries_mu_;
  std::unordered_map<std::string, uint32_t> backoff_retries_;  // URL -> re-fetches after 429/503

  std::mutex work_mu_;
  std::condition_variable work_cv_;  // scheduler: something changed; workers: new completions
  std::deque<Completed> completed_;
  bool scheduler_wake_ = false;
  bool workers_exit_ = false;
  std::vector<std::thread> workers_;

  // Checkpoints. gate_ makes each journaled change atomic with respect to a cut; journal_ is
  // swapped only inside a cut, so any thread holding a pass may append to it.
  std::unique_ptr<CrawlCheckpoint> resume_;
  std::unique_ptr<AuditSet> audit_;
  CheckpointGate gate_;
  std::unique_ptr<JournalWriter> journal_;
  uint64_t generation_ = 0;  // the last generation cut
  std::mutex outstanding_mu_;
  std::unordered_map<uint64_t, Outstanding> outstanding_;  // page requests by id, until processed
  // Scheduler thread only: from the journal replay.
  std::unordered_set<std::string> replayed_done_;     // completed before the crash: not fetched again
  std::unordered_set<std::string> crash_outstanding_;  // in flight at the crash: a fetch is a refetch
  std::atomic<uint64_t> resumes_{0};
  uint64_t pages_before_run_ = 0;  // pages counted by earlier runs of a resumed crawl
  std::atomic<uint64_t> refetched_after_crash_{0};
  std::atomic<uint64_t> audit_false_positives_{0};
  std::vector<std::string> journal_problems_;
  std::thread checkpoint_writer_;
  std::atomic<bool> checkpoint_writing_{false};
  std::chrono::steady_clock::time_point last_checkpoint_;
  std::chrono::steady_clock::time_point last_stats_record_;
  uint64_t pages_at_last_checkpoint_ = 0;
  mutable std::mutex checkpoint_stats_mu_;
  struct {
    uint64_t taken = 0;
    uint64_t failed = 0;
    double last_pause_ms = 0;
    double max_pause_ms = 0;
    uint64_t last_bytes = 0;
    uint64_t total_bytes = 0;
    std::string last_manifest;
  } checkpoint_stats_;

  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_progress_;
};

}  // namespace bloomcrawl
