#include "crawler/pipeline/crawler.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "base/data_error.h"
#include "crawler/cluster/cluster_outbox.h"
#include "crawler/extract/robots_meta.h"
#include "crawler/output/page_log.h"
#include "crawler/output/warc_writer.h"
#include "crawler/persist/journal_records.h"
#include "crawler/pipeline/audit_report.h"
#include "crawler/pipeline/crawl_checkpointer.h"
#include "crawler/pipeline/crawl_monitor.h"
#include "crawler/pipeline/host_outcome.h"
#include "crawler/pipeline/queued_url.h"
#include "crawler/pipeline/revisit_records.h"
#include "crawler/url/canonical.h"
#include "crawler/url/url.h"

namespace bloomcrawl {
namespace {

std::vector<std::string> seed_hosts(const CrawlerSettings& s) {
  std::vector<std::string> hosts;
  for (const std::string& seed : s.seeds) {
    CanonicalUrl c = canonicalize(seed, nullptr, s.canonicalize);
    if (c.ok()) hosts.push_back(c.host);
  }
  return hosts;
}

// Bodies of other accepted types (fetch.accepted_content_types) are kept for the WARC only. A
// response naming no type is parsed as HTML.
bool is_html(const FetchResult& result) {
  const std::string& type = result.media_type;
  return type.empty() || type == "text/html" || type == "application/xhtml+xml";
}

size_t minus_or_zero(size_t a, size_t b) { return a > b ? a - b : 0; }

// Status files in the output and checkpoint directories; report.json mid-crawl when it is written.
CrawlMonitor::Options monitor_options(const CrawlerSettings& s) {
  CrawlMonitor::Options o;
  o.status_directories.push_back(s.output_dir);
  if (!s.checkpoint.directory.empty()) o.status_directories.push_back(s.checkpoint.directory);
  if (s.write_report) o.report_path = s.output_dir / "report.json";
  o.report_interval = s.report_interval;
  return o;
}

}  // namespace

size_t Crawler::in_flight_budget() const {
  return size_t(settings_.fetch.threads) * settings_.fetch.transfers_per_thread;
}

void Crawler::group_by_address(const std::string& host, const std::string& ip) {
  if (grouped_hosts_.first_time(host)) frontier_.set_politeness_group(host, ip);
}

// Settings that follow from others, fixed here so no caller can get them inconsistent.
CrawlerSettings Crawler::normalized(CrawlerSettings s) {
  s.frontier.hold_new_hosts = s.obey_robots;  // a new host waits for its robots.txt
  s.robots.user_agent = s.robots_agent;
  s.fetch.capture_headers = s.write_warc;
  return s;
}

Crawler::Crawler(CrawlerSettings settings, std::unique_ptr<CrawlCheckpoint> resume)
    : settings_(normalized(std::move(settings))),
      scope_(settings_.scope, seed_hosts(settings_)),
      filter_(CrawlCheckpointer::make_filter(settings_, resume.get())),
      frontier_store_{frontier_store_directory(settings_)},
      frontier_(CrawlCheckpointer::make_frontier(settings_, resume.get())),
      robots_(settings_.robots),
      fetch_retries_(settings_.backoff.max_retries, settings_.transport_retries),
      page_log_(settings_.write_pages ? std::make_unique<PageLog>(settings_.output_dir, settings_.write_edges)
                                      : nullptr),
      warc_(settings_.write_warc
                ? std::make_unique<WarcWriter>(WarcOptions{.directory = settings_.output_dir / "warc",
                                                           .max_file_bytes = settings_.warc_max_file_bytes})
                : nullptr),
      checkpointer_(std::make_unique<CrawlCheckpointer>(settings_, filter_, frontier_, stats_, page_log_.get(),
                                                        warc_.get(), std::move(resume))) {
  if (settings_.seeds.empty()) throw std::invalid_argument("no seed URLs");
  if (checkpointer_->resuming() && !checkpointer_->enabled()) {
    throw std::invalid_argument("resuming needs the checkpoint directory");
  }
  if (settings_.cluster.enabled()) {
    cluster_ = std::make_unique<ClusterLink>(settings_.cluster, revisit_round_start());
    start_outbox();
  }
}

Crawler::RemovedWhenDone::~RemovedWhenDone() {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

Crawler::~Crawler() {
  stop_inbox();
  if (fetcher_) fetcher_->stop();
  {
    std::lock_guard<std::mutex> lock(work_mu_);
    workers_exit_ = true;
  }
  completed_cv_.notify_all();
  for (std::thread& t : workers_) {
    if (t.joinable()) t.join();
  }
  if (outbox_) outbox_->stop();
}

void Crawler::stop() {
  stop_requested_.store(true);
  frontier_.close();
  work_cv_.notify_all();
}

nlohmann::json Crawler::run() {
  started_ = last_progress_ = last_robots_sweep_ = std::chrono::steady_clock::now();
  fetcher_ = std::make_unique<Fetcher>(settings_.fetch, [this](FetchResult&& r) { on_fetch_complete(std::move(r)); });
  for (unsigned i = 0; i < std::max(1u, settings_.parse_threads); ++i)
    workers_.emplace_back([this] { parse_worker(); });
  // A resume that cannot write a refusal's record stops before its first generation, so the
  // checkpoint it resumed from stays current and still holds the URL.
  or_fail("checkpoint start", [&] {
    checkpointer_->start([&](std::string_view, std::string_view entry, uint32_t depth, AdmitResult why) {
      const QueuedUrl q = decode_queued_url(entry);
      if (!record_refusal(q.url, q.parent, depth, why)) {
        throw CheckpointError(settings_.output_dir.string(),
                              "a URL the resume could not queue has no record: " + failure());
      }
    });
  });
  pages_before_run_ = stats_.pages_fetched.load();
  monitor_ = std::make_unique<CrawlMonitor>(
      monitor_options(settings_), [this] { return sample_status(); }, [this] { return interim_report(); });
  monitor_->start();
  if (cluster_ && settings_.cluster.grow) join_grown_cluster();
  // A node joining a grown cluster afresh: the crawl's seeds were admitted when it began. A resume
  // admits those its filter lacks (seed()).
  if (!(cluster_ && settings_.cluster.grow) && !failed_.load()) {
    or_fail("seeds", [&] {
      CheckpointGate::Pass pass(checkpointer_->gate());
      seed();
    });
    try {
      wait_for_sends(0);  // other nodes' seeds, in Redis before the crawl goes on
    } catch (const RedisError&) {
      // The outbox has failed the crawl: schedule() returns at once.
    }
  }
  start_inbox();
  or_fail("scheduler", [&] { schedule(); });
  stop_inbox();
  if (cluster_) publish_counters("stopping");
  const bool stopped = stop_requested_.load();
  drain();
  // A page limit leaves the URLs past it queued, as a stop does: a resume with a higher limit
  // fetches them (config/README.md, scope.max_pages).
  const bool page_limit = frontier_.stats(false).queued > 0;
  or_fail("queued URLs", [&] { record_left_queued(); });  // drain() may have failed
  checkpointer_->finish();
  if (std::string f = checkpointer_->failure(); !f.empty()) fail(f);
  if (settings_.progress) print_progress(true);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  nlohmann::json out = report(seconds);
  const char* stop_reason = cluster_stop_.load() ? "stop" : "signal";
  out["crawl"]["stopped_by"] = failed_.load() ? "error" : stopped ? stop_reason : page_limit ? "page_limit" : "done";
  if (failed_.load()) out["crawl"]["error"] = failure();
  if (cluster_) finish_cluster(out);
  monitor_->finish(out["crawl"]["stopped_by"]);
  return out;
}

void Crawler::schedule() {
  const size_t max_in_flight = in_flight_budget();
  while (!stop_requested_.load()) {
    Clock::time_point now = Clock::now();
    // Before crawl_over() may mark this node idle: a node that lets the crawl end is alive in
    // Redis until its report is stored, so every other node waits for that report.
    if (cluster_) {
      tick_cluster();  // may ask to stop (bloomcrawl stop --cluster)
      if (stop_requested_.load()) break;
    }
    start_due_robots_fetches(now);
    dispatch(now, max_in_flight);
    if (crawl_over()) break;
    Clock::time_point wake = now + std::chrono::milliseconds(250);
    if (auto ready = frontier_.next_ready_time()) wake = std::min(wake, std::max(*ready, now));
    if (auto robots = requests_.next_due()) wake = std::min(wake, std::max(*robots, now));
    // A robots.txt request waiting for its host's key, when the share has a slot for it (a full
    // share is freed by a transfer's end, which wakes the scheduler).
    if (auto robots = frontier_.next_prerequisite_time(); robots && robots_share_.in_flight() < robots_share_.slots()) {
      wake = std::min(wake, std::max(*robots, now));
    }
    std::unique_lock<std::mutex> lock(work_mu_);
    work_cv_.wait_until(lock, wake, [&] { return scheduler_wake_ || stop_requested_.load(); });
    scheduler_wake_ = false;
    lock.unlock();
    if (settings_.progress) print_progress(false);
    checkpointer_->maybe_checkpoint();
    fail_on_store_failure();
    if (now - last_robots_sweep_ >= kRobotsSweepInterval) {
      robots_.erase_expired(now);
      last_robots_sweep_ = now;
    }
  }
}

// Every request settled: the in-flight ones cancelled or finished, the parse workers done.
void Crawler::drain() {
  // Cancelled transfers come back through on_fetch_complete and are put back in the frontier.
  fetcher_->stop();
  // robots.txt requests waiting for their time (retries, redirect hops) or for a slot will not be
  // submitted now: they are no longer pending. A parse worker still busy with a robots.txt answer
  // may add one more, so they are dropped again until nothing is pending.
  for (;;) {
    for (size_t i = requests_.drop_waiting(); i > 0; --i) robots_work_done();
    std::unique_lock<std::mutex> lock(work_mu_);
    if (work_cv_.wait_for(lock, std::chrono::milliseconds(100), [&] { return pending_.load() == 0; })) {
      workers_exit_ = true;
      break;
    }
  }
  completed_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
  // The last links out, and the completions of the pages that sent them journaled, before the
  // final checkpoint.
  if (outbox_) outbox_->stop();
  try {
    if (page_log_) page_log_->sync();
    if (warc_) warc_->close();
  } catch (const CheckpointError& e) {
    fail(e.what());
  }
}

uint32_t Crawler::admit(std::vector<Candidate>& candidates, uint32_t depth, const std::string& parent, uint32_t hops) {
  if (candidates.empty()) return 0;
  if (failed_.load()) {
    // After an output failure no URL enters the filter: a refusal could not be recorded, and the
    // page being processed stays outstanding, so a resume fetches it and finds these links again.
    throw CheckpointError(settings_.output_dir.string(), "links not admitted: the crawl stops on an output failure");
  }
  if (depth > settings_.frontier.max_depth) {
    stats_.links_too_deep.fetch_add(candidates.size(), std::memory_order_relaxed);
    return 0;
  }
  stats_.links_in_scope.fetch_add(candidates.size(), std::memory_order_relaxed);
  if (cluster_) {
    route_to_owners(candidates, depth, parent, hops);
    if (candidates.empty()) return 0;
  }
  std::vector<std::string_view> keys;
  keys.reserve(candidates.size());
  for (const Candidate& c : candidates) keys.push_back(c.url);
  std::vector<InsertOutcome> outcomes(keys.size(), InsertOutcome::kSeen);
  JournalBatch batch;
  uint32_t admitted = 0;
  size_t i = 0;  // after a throw: the candidate the frontier failed at (the first not queued)
  std::vector<const Candidate*> new_hosts;
  try {
    // The seen filter's answers, then the URL records' (crawl_records.h: exact mode rescues a "seen").
    checkpointer_->records().admit(filter_, keys, outcomes, depth, parent);
    checkpointer_->audit_outcomes(keys, outcomes, batch);
    for (; i < candidates.size(); ++i) {
      const Candidate& c = candidates[i];
      switch (outcomes[i]) {
        case InsertOutcome::kSeen: stats_.add_duplicate(c.host, link_kind_name(c.kind)); continue;
        case InsertOutcome::kFull:
          if (stats_.filter_full.fetch_add(1) == 0) {
            spdlog::warn("seen filter is full ({}): new URLs are dropped from now on", filter_.full_reason());
          }
          continue;
        case InsertOutcome::kNew:
          if (admit_new(c, depth, parent, hops, batch, new_hosts)) ++admitted;
          break;
      }
    }
    // New hosts start held (FrontierOptions::hold_new_hosts) until their robots.txt is known. Looked
    // up once every link is queued: a throw here (i == the end) leaves none half admitted.
    const Clock::time_point now = Clock::now();
    for (const Candidate* c : new_hosts) {
      if (robots_verdict(c->host, c->url, now).kind != RobotsVerdict::Kind::kWait) frontier_.release_host(c->host);
    }
  } catch (const std::exception& e) {
    return admitted + admission_failed(candidates, outcomes, i, depth, parent, batch, e);
  }
  checkpointer_->journal_admissions(batch);
  if (admitted) {
    std::lock_guard<std::mutex> lock(work_mu_);
    scheduler_wake_ = true;
    work_cv_.notify_all();
  }
  return admitted;
}

// A URL new to the seen filter, into the frontier; true if queued.
bool Crawler::admit_new(const Candidate& c, uint32_t depth, const std::string& parent, uint32_t hops,
                        JournalBatch& batch, std::vector<const Candidate*>& new_hosts) {
  stats_.links_new.fetch_add(1, std::memory_order_relaxed);
  bool new_host = false;
  std::string entry = encode_queued_url({c.url, parent, hops, c.sitemap});
  AdmitResult r = frontier_.push(c.host, entry, depth, &new_host);
  // A refusal whose record cannot be written (the crawl is stopping: its frontier is closed) stays
  // queued instead, so that the final checkpoint carries it to a resume, which records it.
  const bool kept = r != AdmitResult::kQueued && !record_refusal(c.url, parent, depth, r);
  if (kept) frontier_.keep(c.host, entry, depth);
  if (checkpointer_->journaling()) {
    const bool queued = r == AdmitResult::kQueued || kept;
    add_record(batch, AdmittedRecord{c.host, std::move(entry), depth, queued, unix_ms(std::chrono::system_clock::now()),
                                     queued ? "" : refusal_outcome(r)});
  }
  if (r != AdmitResult::kQueued) return false;
  if (new_host && settings_.obey_robots) new_hosts.push_back(&c);
  return true;
}

void Crawler::dispatch(Clock::time_point now, size_t max_in_flight) {
  // pending_ also counts pages fetched but not yet parsed: bounding it keeps fetching in step
  // with parsing, so a fast network cannot pile bodies up in memory. robots.txt work has its own
  // bounded share (robots_share.h) and is left out of both page bounds, so the robots.txt files
  // of many new hosts never stall pages; pages leave room for the share's slots in use or wanted.
  const uint64_t max_pending = max_in_flight + 16 * uint64_t(std::max(1u, settings_.parse_threads));
  const auto page_room = [&] {
    const size_t pages_in_flight = minus_or_zero(fetcher_->in_flight(), robots_share_.in_flight());
    const uint64_t pages_pending = minus_or_zero(pending_.load(), robots_share_.pending());
    return pages_in_flight + robots_share_.reserve(requests_.queued()) < max_in_flight && pages_pending < max_pending;
  };
  while (!stop_requested_.load() && page_room()) {
    std::optional<Lease> lease = frontier_.pop_ready(now);
    if (!lease) return;
    const QueuedUrl q = decode_queued_url(lease->entry.url);
    if (checkpointer_->skip_replayed(*lease, q.url)) continue;
    if (cluster_ && hand_over(*lease, q)) continue;
    PageRequest page;
    page.url = q.url;
    page.parent = q.parent;
    page.redirect_hops = q.redirect_hops;
    page.sitemap = q.sitemap;
    page.lease = std::move(*lease);  // after the copies: q views into it
    if (!admit_to_fetch(page, now)) continue;
    submit_page(std::move(page));
  }
}

bool Crawler::robots_admit(PageRequest& page, Clock::time_point now) {
  const RobotsVerdict verdict = robots_verdict(page.lease.entry.host, page.url, now);
  switch (verdict.kind) {
    case RobotsVerdict::Kind::kAllowed: return true;
    case RobotsVerdict::Kind::kWait: frontier_.release(page.lease); break;
    case RobotsVerdict::Kind::kDisallowed:
      if (drop_unfetched(page, "robots_disallowed", verdict.rule)) {
        stats_.robots_disallowed.fetch_add(1, std::memory_order_relaxed);
      }
      break;
    case RobotsVerdict::Kind::kGivenUp:
      // RFC 9309 2.3.1.4: an unreachable robots.txt means complete disallow; the record says why.
      if (drop_unfetched(page, robots_give_up_outcome(verdict.given_up), "robots.txt could not be fetched")) {
        (verdict.given_up == RobotsGiveUp::kHostUnreachable ? stats_.host_unreachable : stats_.robots_unavailable)
            .fetch_add(1, std::memory_order_relaxed);
      }
      break;
  }
  return false;
}

// The lease will never be fetched: its record says why. When the record cannot be written the
// crawl stops and the URL stays queued, so the checkpoint keeps it and a resume decides again.
bool Crawler::drop_unfetched(const PageRequest& page, const char* outcome, const std::string& error) {
  if (!record_or_fail({.url = page.url,
                       .parent = page.parent,
                       .depth = page.lease.entry.depth,
                       .outcome = outcome,
                       .error = error})) {
    frontier_.release(page.lease);
    return false;
  }
  frontier_.drop(page.lease);
  return true;
}

void Crawler::submit_page(PageRequest page) {
  FetchRequest fr;
  fr.id = next_request_id_.fetch_add(1);
  fr.url = page.url;
  fr.host = page.lease.entry.host;
  fr.close_connection = page.lease.surplus;
  prepare_page_fetch(page, fr);  // a sitemap's Accept, a revisit's validators
  {
    CheckpointGate::Pass pass(checkpointer_->gate());
    checkpointer_->on_page_dispatched(fr.id, page.lease.entry, page.url);
    requests_.add(fr.id, std::move(page));
  }
  pending_.fetch_add(1);
  fetcher_->submit(std::move(fr));
}

void Crawler::on_fetch_complete(FetchResult&& result) {
  std::optional<CrawlRequest> taken = requests_.take(result.id);
  if (!taken) return;
  if (std::holds_alternative<RobotsRequest>(*taken)) robots_share_.finished();
  // Past take() the request exists nowhere else: whatever throws, it must end here, or the
  // pending count never returns to zero and the crawl never finishes.
  try {
    if (const RobotsRequest* robots = std::get_if<RobotsRequest>(&*taken)) settle_robots_slot(*robots, result);
    complete_fetch(*taken, result);
  } catch (const std::exception& e) {
    abandon_fetch(*taken, result, e.what());
  }
}

void Crawler::complete_fetch(CrawlRequest& request, FetchResult& result) {
  inject_fault(WorkerPath::kFetchComplete, result.url);
  PageRequest* page = std::get_if<PageRequest>(&request);
  if (result.outcome == FetchOutcome::kCancelled) {
    // A stop: the URL goes back to the head of its host's queue, unfetched.
    if (page) {
      CheckpointGate::Pass pass(checkpointer_->gate());
      frontier_.release(page->lease);
      stats_.pages_requeued.fetch_add(1, std::memory_order_relaxed);
      checkpointer_->on_page_requeued(result.id);
    }
    if (page) {
      work_done();
    } else {
      robots_work_done();
    }
    return;
  }
  if (page && !settle_page(*page, result)) {
    work_done();
    return;
  }
  {
    std::lock_guard<std::mutex> lock(work_mu_);
    completed_.push_back({std::move(request), std::move(result)});
    scheduler_wake_ = true;
  }
  completed_cv_.notify_one();
  work_cv_.notify_all();
}

void Crawler::abandon_fetch(CrawlRequest& request, const FetchResult& result, const std::string& why) {
  spdlog::error("{}: internal error on fetch completion: {}", result.url, why);
  PageRequest* page = std::get_if<PageRequest>(&request);
  if (!page) {
    // The robots.txt answer is lost as if the fetch had failed: the host waits for a retry.
    try {
      const Clock::time_point now = Clock::now();
      const RobotsNext next = robots_.on_failed(std::get<RobotsRequest>(request).origin, RobotsFailure::kOutage, now);
      settle_robots(std::get<RobotsRequest>(request), next, now);
    } catch (const std::exception& e) {
      spdlog::error("{}: robots.txt not settled: {}", result.url, e.what());
    }
    robots_work_done();
    return;
  }
  {
    CheckpointGate::Pass pass(checkpointer_->gate());
    try {
      frontier_.drop(page->lease);
    } catch (const std::exception&) {
      // The lease was settled before the throw.
    }
    record_crawler_error(*page, result, why);
  }
  work_done();
}

// Politeness is measured from the end of the transfer, so the host is settled now rather than
// after parsing.
bool Crawler::settle_page(const PageRequest& page, const FetchResult& result) {
  const Clock::time_point now = Clock::now();
  CheckpointGate::Pass pass(checkpointer_->gate());
  const HostOutcome outcome = host_outcome(result, now, settings_.backoff);
  if (const std::optional<RetryCause> retry = fetch_retries_.take(page.lease.entry.url, result, outcome)) {
    // 429/503 (the host backs off) or no response at all: the URL waits at the head of its queue
    // for the retry; this attempt is not the page's record (the final attempt's is).
    frontier_.retry(page.lease, now, outcome);
    stats_.add_retry(*retry);
    checkpointer_->on_page_requeued(result.id);
    return false;
  }
  frontier_.complete(page.lease, now, outcome);
  checkpointer_->on_page_fetched(result.id);
  if (settings_.group_by_ip && !result.remote_ip.empty()) group_by_address(page.lease.entry.host, result.remote_ip);
  return true;
}

void Crawler::work_done() {
  // Finished work may end the crawl or make room under dispatch()'s bound on pending work.
  pending_.fetch_sub(1);
  {
    std::lock_guard<std::mutex> lock(work_mu_);
    scheduler_wake_ = true;
  }
  work_cv_.notify_all();
}

void Crawler::parse_worker() {
  for (;;) {
    CompletedFetch item;
    {
      std::unique_lock<std::mutex> lock(work_mu_);
      completed_cv_.wait(lock, [&] { return workers_exit_ || !completed_.empty(); });
      if (completed_.empty()) return;
      item = std::move(completed_.front());
      completed_.pop_front();
    }
    const bool page_request = std::holds_alternative<PageRequest>(item.request);
    const uint64_t sends_before = sends_so_far();
    // Whatever escapes the page's own handling stops the crawl; the worker goes on to settle it.
    or_fail("parse worker", [&] {
      CheckpointGate::Pass pass(checkpointer_->gate());
      PageRequest* page = std::get_if<PageRequest>(&item.request);
      // A page not processed after an output failure (before or during its processing) stays
      // outstanding: the final checkpoint queues it again (without one, it is recorded as not fetched).
      bool processed = false;
      bool recorded = false;  // its crawler_error record
      try {
        if (!page) {
          process_robots(std::get<RobotsRequest>(item.request), item.result);
        } else if (!failed_.load()) {
          process_page(*page, item.result);
          processed = true;
        }
      } catch (const CheckpointError& e) {
        fail(e.what());
      } catch (const std::exception& e) {
        spdlog::error("{}: {}", item.result.url, e.what());
        recorded = page && record_crawler_error(*page, item.result, e.what());
      }
      if (page && processed) {
        mark_processed(item.result);
      } else if (page && !recorded && failed_.load() && !checkpointer_->enabled()) {
        record_or_fail({.url = page->url,
                        .parent = page->parent,
                        .depth = page->lease.entry.depth,
                        .outcome = "not_fetched_at_stop",
                        .error = failure()});
      }
    });
    if (page_request) {
      work_done();
    } else {
      try {
        wait_for_sends(sends_before);  // a robots.txt's sitemaps for other nodes: no record waits for them
      } catch (const RedisError&) {
        // The outbox has failed the crawl.
      }
      robots_work_done();
    }
  }
}

// A page whose processing threw (a bug, or memory exhausted) still gets its record; if even that
// cannot be written, it stays outstanding for the final checkpoint.
bool Crawler::record_crawler_error(const PageRequest& page, const FetchResult& result, const std::string& why) {
  if (!record_or_fail({.url = page.url,
                       .parent = page.parent,
                       .depth = page.lease.entry.depth,
                       .outcome = "crawler_error",
                       .error = why})) {
    return false;
  }
  mark_processed(result);
  return true;
}

// The checkpointer's journal marks the page done. Its record is written already, so a throw here
// leaves the page outstanding: a resume fetches it again (as after a crash), and the crawl goes on.
void Crawler::mark_processed(const FetchResult& result) {
  try {
    inject_fault(WorkerPath::kPageProcessed, result.url);
    if (mark_processed_once_sent(result)) return;
    checkpointer_->on_page_processed(result.id, result);
  } catch (const CheckpointError& e) {
    fail(e.what());  // the journal cannot take it: the crawl stops, the page stays outstanding
  } catch (const std::exception& e) {
    spdlog::error("{}: recorded, but not marked done for a resume: {}", result.url, e.what());
  }
}

void Crawler::inject_fault(WorkerPath path, std::string_view url) const {
  if (settings_.inject_fault) settings_.inject_fault(path, url);
}

void Crawler::process_page(const PageRequest& page, FetchResult& result) {
  PageRecord rec;
  rec.url = page.url;
  rec.parent = page.parent;
  rec.depth = page.lease.entry.depth;
  rec.status = result.status;
  rec.content_type = result.content_type;
  rec.bytes = result.body_decoded_bytes;
  rec.fetch_ms = result.total_ms;
  rec.error = result.error;
  set_page_outcome(page, result, rec);
  record_fetch(result, &rec);
  if (!response_received(result)) {
    stats_.add_failure(fetch_outcome_name(result.outcome));
    stats_.recent_errors.add(page.url, rec.outcome + (result.error.empty() ? "" : ": " + result.error));
    write_record(rec);
    return;
  }
  stats_.pages_fetched.fetch_add(1, std::memory_order_relaxed);
  stats_.bytes_received.fetch_add(result.body_decoded_bytes, std::memory_order_relaxed);
  stats_.fetch_ms_total.fetch_add(uint64_t(result.total_ms), std::memory_order_relaxed);
  stats_.fetch_latency.observe_ms(result.total_ms);
  const bool links_wanted = see_content(page, result, rec);
  const long s = result.status;
  (s < 300   ? stats_.status_2xx
   : s < 400 ? stats_.status_3xx
   : s < 500 ? stats_.status_4xx
             : stats_.status_5xx)
      .fetch_add(1, std::memory_order_relaxed);
  if (s >= 400) stats_.recent_errors.add(page.url, "HTTP " + std::to_string(s));

  if (s >= 300 && s < 400 && !result.location.empty()) {
    follow_redirect(page, result, rec);
  } else if (page.sitemap) {
    if (s >= 200 && s < 300 && result.content_accepted) process_sitemap(page, result, rec);
  } else if (links_wanted && s >= 200 && s < 300 && result.content_accepted && is_html(result)) {
    process_html(result, rec);
  }
  write_record(rec);
}

// An HTML page's links, those followed admitted one level deeper.
void Crawler::process_html(const FetchResult& result, PageRecord& rec) {
  stats_.html_pages.fetch_add(1, std::memory_order_relaxed);
  inject_fault(WorkerPath::kLinkExtraction, rec.url);
  ExtractedLinks extracted = extract_page_links(result.body, result.content_type, settings_.links);
  if (!extracted.parse_error.empty()) {
    stats_.html_parse_failures.fetch_add(1, std::memory_order_relaxed);
    rec.error = "links not extracted: " + extracted.parse_error;
    spdlog::warn("{}: {}", rec.url, rec.error);
    return;
  }
  bool page_nofollow = false;
  if (settings_.obey_meta_robots) {
    RobotsDirectives header = parse_x_robots_tag(result.x_robots_tag, settings_.robots_agent);
    page_nofollow = extracted.meta_nofollow || header.nofollow;
  }
  std::optional<Url> page_url = parse_url(rec.url);
  std::optional<Url> base = page_url;
  if (extracted.base_href && page_url) {
    if (std::optional<Url> b = parse_url(*extracted.base_href, &*page_url, nullptr, extracted.encoding)) {
      base = std::move(b);
    }
  }
  // fetch.max_links_per_page: the links past it are counted (found, dropped), not followed.
  if (extracted.links_over_cap > 0) stats_.add_drop("max_links_per_page", extracted.links_over_cap);
  stats_.links_discovered.fetch_add(extracted.links.size() + extracted.links_over_cap, std::memory_order_relaxed);
  rec.links_found = uint32_t(extracted.links.size() + extracted.links_over_cap);
  rec.links_truncated = extracted.truncated;
  std::vector<Candidate> candidates;
  candidates.reserve(extracted.links.size());
  std::vector<std::string> edges;
  for (const Link& link : extracted.links) {
    if (page_nofollow || (link.nofollow && !settings_.follow_nofollow) || !settings_.follow_kinds.contains(link.kind)) {
      stats_.links_nofollow.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    std::optional<Candidate> c = candidate(link.href, base ? &*base : nullptr, link.kind, extracted.encoding);
    if (!c) continue;
    if (settings_.write_edges) edges.push_back(c->url);
    candidates.push_back(std::move(*c));
  }
  rec.links_new = admit(candidates, rec.depth + 1, rec.url, 0);
  if (page_log_ && settings_.write_edges) page_log_->write_edges(rec.url, edges);
}

// A discovered href as a candidate for the seen filter, or nullopt (counted by reason) when it
// is invalid, not http(s), too long or out of scope.
std::optional<Crawler::Candidate> Crawler::candidate(std::string_view href, const Url* base, LinkKind kind,
                                                     Encoding encoding) {
  CanonicalUrl c = canonicalize(href, base, settings_.canonicalize, encoding);
  if (!c.ok()) {
    switch (c.reason) {
      case UrlDropReason::kUnsupportedScheme: stats_.links_unsupported_scheme.fetch_add(1); break;
      case UrlDropReason::kTooLong: stats_.links_too_long.fetch_add(1); break;
      default: stats_.links_invalid.fetch_add(1); break;
    }
    return std::nullopt;
  }
  ScopeVerdict verdict = scope_.check(c.url, c.host);
  if (verdict != ScopeVerdict::kInScope) {
    stats_.links_out_of_scope.fetch_add(1, std::memory_order_relaxed);
    stats_.add_drop(scope_verdict_name(verdict));
    return std::nullopt;
  }
  return learned_candidate(std::move(c.url), std::move(c.host), kind);
}

void Crawler::follow_redirect(const PageRequest& page, const FetchResult& result, PageRecord& rec) {
  stats_.redirects.fetch_add(1, std::memory_order_relaxed);
  if (page.redirect_hops + 1 > settings_.max_redirects) {
    stats_.redirects_dropped.fetch_add(1, std::memory_order_relaxed);
    rec.error = "more than " + std::to_string(settings_.max_redirects) + " redirects";
    return;
  }
  std::optional<Url> page_url = parse_url(rec.url);
  CanonicalUrl c = canonicalize(result.location, page_url ? &*page_url : nullptr, settings_.canonicalize);
  if (!c.ok()) {
    stats_.redirects_dropped.fetch_add(1, std::memory_order_relaxed);
    rec.error = "redirect target dropped: " + c.error;
    return;
  }
  rec.location = c.url;
  if (scope_.check(c.url, c.host) != ScopeVerdict::kInScope) {
    stats_.redirects_dropped.fetch_add(1, std::memory_order_relaxed);
    rec.error = "redirect target out of scope";
    return;
  }
  if (filter_.contains(c.url)) {
    stats_.redirects_deduplicated.fetch_add(1, std::memory_order_relaxed);
  }
  // A redirect target keeps the depth of the page that redirected to it.
  std::vector<Candidate> one{{std::move(c.url), std::move(c.host), LinkKind::kAnchor}};
  rec.links_new = admit(one, rec.depth, rec.url, page.redirect_hops + 1);
}

// After drain(). URLs still queued (at a stop, or past a page limit) stay in the checkpoint for a
// resume; without one each gets its record.
void Crawler::record_left_queued() {
  if (checkpointer_->enabled()) return;
  const std::string outcome = "not_fetched_at_stop";
  const std::string error = failed_.load() ? failure() : "";
  uint64_t unrecorded = 0;
  frontier_.for_each_queued([&](std::string_view, std::string_view entry, uint32_t depth) {
    if (unrecorded > 0) {
      ++unrecorded;
      return;
    }
    const QueuedUrl q = decode_queued_url(entry);
    if (!record_or_fail({.url = std::string(q.url),
                         .parent = std::string(q.parent),
                         .depth = depth,
                         .outcome = outcome,
                         .error = error})) {
      ++unrecorded;
    }
  });
  if (unrecorded > 0) spdlog::error("{} queued URLs have no record ({})", unrecorded, outcome);
}

bool Crawler::finished() const { return pending_.load() == 0 && frontier_.empty_and_idle(); }

void Crawler::print_progress(bool final_line) {
  auto now = std::chrono::steady_clock::now();
  const bool terminal = isatty(STDERR_FILENO) != 0;
  // Off a terminal (logging.progress "always") the line goes to the log, one per interval.
  const std::chrono::steady_clock::duration interval =
      terminal ? std::chrono::milliseconds(500) : std::chrono::steady_clock::duration(settings_.progress_log_interval);
  if (!final_line && now - last_progress_ < interval) return;
  last_progress_ = now;
  const CrawlStatus s = sample_status();
  // Hosts waiting on a failing robots.txt hold the crawl open: say so, and until when.
  std::string robots_wait;
  if (const RobotsWaits waits = requests_.robots_waits(); waits.hosts > 0) {
    const double next_s = std::max(0.0, std::chrono::duration<double>(*waits.next - now).count());
    char buf[96];
    std::snprintf(buf, sizeof buf, " | robots.txt wait %zu hosts, next try in %.0f s", waits.hosts, next_s);
    robots_wait = buf;
  }
  char line[512];
  std::snprintf(line, sizeof line,
                "%llu pages %.1f/s | in flight %llu | queued %llu hosts %llu | filter %llu keys %.1f%% full %llu "
                "layers %.1f MB | dups avoided %llu%s",
                (unsigned long long)s.pages, s.seconds > 0 ? double(s.pages) / s.seconds : 0.0,
                (unsigned long long)s.in_flight, (unsigned long long)s.queued, (unsigned long long)s.hosts,
                (unsigned long long)s.filter_keys, 100.0 * s.filter_fill(), (unsigned long long)s.filter_layers,
                double(s.filter_bytes) / (1 << 20), (unsigned long long)s.duplicates_avoided, robots_wait.c_str());
  if (!terminal) {
    spdlog::info("progress: {}", line);
    return;
  }
  std::fprintf(stderr, "\r\033[K%s%s", line, final_line ? "\n" : "");
  std::fflush(stderr);
}

// report.json while the crawl runs: what run() returns at the end, but not stopped by anything yet.
nlohmann::json Crawler::interim_report() const {
  nlohmann::json out = report(std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count());
  out["crawl"]["running"] = true;
  if (!settings_.config.is_null()) out["config"] = settings_.config;
  return out;
}

nlohmann::json Crawler::report(double seconds) const {
  nlohmann::json out = stats_.to_json();
  uint64_t pages = stats_.pages_fetched.load();
  // After a resume the counters include earlier runs; the rate is this run's.
  const uint64_t run_pages = pages - pages_before_run_;
  out["crawl"] = {{"seconds", seconds},
                  {"pages_this_run", run_pages},
                  {"pages_per_second", seconds > 0 ? double(run_pages) / seconds : 0.0}};
  SeenFilterStats fs = filter_.stats();
  nlohmann::json layers = nlohmann::json::array();
  uint64_t capacity = 0;
  for (const auto& l : fs.layers) {
    layers.push_back({{"capacity", l.capacity}, {"keys", l.keys}, {"fill", l.fill}});
    capacity += l.capacity;
  }
  out["seen_filter"] = {{"keys", fs.keys},
                        {"capacity", capacity},
                        {"layers", layers},
                        {"bytes", fs.bytes},
                        {"bits_per_key", fs.bits_per_key},
                        {"bits_per_capacity_key", capacity ? double(fs.bytes) * 8.0 / double(capacity) : 0.0},
                        {"estimated_fpr", fs.estimated_fpr},
                        {"estimated_false_positives", fs.estimated_false_positives}};
  const FrontierStats f = frontier_.stats(/*compute_memory=*/true);  // O(hosts), once per report
  out["frontier"] = {{"queued", f.queued},
                     {"hosts", f.hosts},
                     {"dispatched", f.dispatched},
                     {"memory_bytes", f.bytes_used},
                     {"memory_limit_bytes", settings_.frontier.memory_limit_bytes}};
  out["fetches"]["robots_share"] = {{"slots", robots_share_.slots()},
                                    {"peak_in_flight", robots_share_.peak_in_flight()}};
  out["duplicates_avoided"]["pages_refetched_after_crash"] = checkpointer_->refetched_after_crash();
  if (const AuditSet* audit = checkpointer_->audit()) out["audit"] = audit_report(*audit, fs.estimated_false_positives);
  if (checkpointer_->enabled()) out["checkpoint"] = checkpointer_->report();
  return out;
}

}  // namespace bloomcrawl
