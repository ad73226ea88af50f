// CrawlCheckpointer (crawl_checkpointer.h): resuming from a checkpoint and its journals, cutting a
// generation in a brief pause and writing it off the critical path, and the journal records the
// pipeline's changes become. Why each piece is needed: docs/checkpoint-format.md, "Crawl
// checkpoint" and "Resume".
#include "crawler/pipeline/crawl_checkpointer.h"

#include <algorithm>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "crawler/fetch/fetcher.h"
#include "crawler/output/page_log.h"
#include "crawler/output/warc_writer.h"
#include "crawler/persist/journal_replay.h"
#include "crawler/pipeline/completed_outputs.h"
#include "crawler/pipeline/queued_url.h"
#include "crawler/url/canonical.h"
#include "records/record_store.h"
#include "seenfilter/checkpoint_format.h"

namespace bloomcrawl {
namespace {

// The counters a resume starts from. The journal's last stats record is newer than the
// checkpoint's, except for page counters: those are rebuilt exactly from the completed records,
// so they are taken from the checkpoint, which the completed records continue.
nlohmann::json stats_to_resume(const nlohmann::json& checkpointed, const nlohmann::json& journaled) {
  if (journaled.is_null()) return checkpointed;
  nlohmann::json out = journaled;
  for (const char* field : {"pages_fetched", "bytes_received", "fetch_ms_total", "status"}) {
    const nlohmann::json::json_pointer p(std::string("/fetches/") + field);
    if (checkpointed.contains(p)) {
      out[p] = checkpointed.at(p);
    } else if (out.contains(p)) {
      out[p.parent_pointer()].erase(field);
    }
  }
  return out;
}

}  // namespace

// With checkpoints, a growing filter is compact (docs/seenfilter.md, "Compaction"): its hash log
// lives beside the filter's checkpoint files (filter/ in crawl_checkpoint.h), which is the only
// directory a compact filter saves into. A resumed filter is what the checkpoint holds.
SeenFilter CrawlCheckpointer::make_filter(const CrawlerSettings& s, const CrawlCheckpoint* resume) {
  if (resume) return SeenFilter(resume->filter);
  SeenFilterOptions options = s.filter;
  if (!s.checkpoint.directory.empty() && options.tightening_ratio != 0.0) {
    const std::filesystem::path filter_dir = s.checkpoint.directory / "filter";
    std::filesystem::create_directories(filter_dir);
    options.hash_log = filter_dir / seenfilter::kHashLogFileName;
  }
  return SeenFilter(std::move(options));
}

Frontier CrawlCheckpointer::make_frontier(const CrawlerSettings& s, const CrawlCheckpoint* resume) {
  FrontierOptions options = s.frontier;
  options.store_directory = frontier_store_directory(s).string();
  std::filesystem::create_directories(frontier_store_directory(s).parent_path());
  if (!resume || resume->frontier_lost) return Frontier(std::move(options));  // lost: the records requeue it
  if (resume->frontier_directory.empty()) return Frontier::restore(resume->frontier, std::move(options));  // version 1
  try {
    return Frontier::open_checkpoint(resume->frontier_directory, std::move(options));
  } catch (const std::runtime_error& e) {
    throw CheckpointError(resume->frontier_directory.string(), e.what());
  }
}

CrawlCheckpointer::CrawlCheckpointer(const CrawlerSettings& settings, SeenFilter& filter, Frontier& frontier,
                                     CrawlStats& stats, PageLog* page_log, WarcWriter* warc,
                                     std::unique_ptr<CrawlCheckpoint> resume)
    : settings_(settings),
      filter_(filter),
      frontier_(frontier),
      stats_(stats),
      page_log_(page_log),
      warc_(warc),
      resume_(std::move(resume)),
      records_(std::make_unique<CrawlRecords>(settings, resume_.get(), stats)) {
  // Decided here, before the status port can read audit() from its threads, never reset later.
  if (resume_) saved_audit_false_positives_ = resume_->manifest.counters.value("audit_false_positives", uint64_t{0});
  if (!settings_.audit) return;
  if (resume_ && !resume_->audit_enabled) {
    spdlog::warn(
        "audit: the checkpoint was taken without audit, so an exact set would miss every URL seen "
        "before; audit stays off for this crawl");
    return;
  }
  audit_ = std::make_unique<AuditSet>();
}

CrawlCheckpointer::~CrawlCheckpointer() {
  if (writer_.joinable()) writer_.join();
}

void CrawlCheckpointer::start(const RefusalRecorder& record_refusal) {
  if (!enabled()) return;
  if (resume_) {
    try {
      resume_from_checkpoint(record_refusal);
    } catch (const std::exception& e) {
      // The filter and frontier hold part of the replay: a generation of them would be followed by
      // no journal that has the rest.
      refuse_generations(std::string("the resume stopped part-way: ") + e.what());
      throw;
    }
  }
  take_checkpoint(true);
}

void CrawlCheckpointer::refuse_generations(const std::string& why) {
  std::lock_guard<std::mutex> lock(written_mu_);
  if (refused_.empty()) refused_ = why;
}

void CrawlCheckpointer::throw_if_refused() const {
  std::lock_guard<std::mutex> lock(written_mu_);
  if (!refused_.empty()) {
    throw CheckpointError(settings_.checkpoint.directory.string(), "no generation is committed after " + refused_);
  }
}

void CrawlCheckpointer::finish() {
  if (!enabled()) {
    try {
      records_->persist();  // the output directory's store: the crawl's only copy
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(written_mu_);
      if (failure_.empty()) failure_ = e.what();
    }
    return;
  }
  try {
    take_checkpoint(true);
  } catch (const std::exception& e) {
    spdlog::error("final checkpoint not taken ({}); a resume replays the journal instead", e.what());
    checkpoint_failed(e.what());
  }
}

void CrawlCheckpointer::resume_from_checkpoint(const RefusalRecorder& record_refusal) {
  const CrawlManifest& m = resume_->manifest;
  const std::filesystem::path& dir = settings_.checkpoint.directory;
  auto counter = [&](const char* name) { return m.counters.value(name, uint64_t{0}); };
  resumes_ = counter("resumes") + 1;
  refetched_after_crash_ = counter("refetched_after_crash");
  if (audit_) audit_->restore(resume_->audit, saved_audit_false_positives_);
  std::vector<std::pair<const FrontierUrl*, AdmitResult>> refused;
  // A lost frontier is rebuilt from the records after the replay; they hold these too.
  for (const FrontierUrl& u : resume_->frontier_lost ? std::vector<FrontierUrl>{} : m.requeue) {
    if (AdmitResult r = frontier_.requeue(u.host, u.url, u.depth); r != AdmitResult::kQueued)
      refused.emplace_back(&u, r);
  }

  OutputsOnDisk on_disk(settings_.output_dir);
  JournalReplay replay = replay_journals(journals_since(dir, m.generation), m.outstanding,
                                         [&](const CompletedRecord& c) { return on_disk.holds(c.url, *c.outputs); });
  apply_replay(replay, record_refusal);
  // A page completed after the checkpoint has its record already, whatever the limits say now.
  auto record_unless_done = [&](std::string_view host, std::string_view entry, uint32_t depth, AdmitResult why) {
    if (!replayed_done_.contains(std::string(decode_queued_url(entry).url))) record_refusal(host, entry, depth, why);
  };
  for (const auto& [u, why] : refused) record_unless_done(u->host, u->url, u->depth, why);
  // robots.txt is fetched again rather than restored: it may have changed while the crawl was
  // stopped, and it costs one request per host. Releasing the held hosts lets dispatch() find
  // their rules missing and fetch them first, as for a new host.
  if (settings_.obey_robots) {
    for (const std::string& host : frontier_.held_hosts()) frontier_.release_host(host);
  }
  spdlog::info(
      "resumed from {} generation {}: {} pages done, {} queued, {} journal records replayed, "
      "{} pages completed since, {} in flight at the stop",
      dir.string(), m.generation, stats_.pages_fetched.load(), frontier_.stats(false).queued, replay.records,
      replayed_done_.size(), crash_outstanding_.size());
}

// What the journals since the checkpoint add to it: admitted URLs, page counters, and the pages
// completed or in flight when the crawl stopped.
void CrawlCheckpointer::apply_replay(JournalReplay& replay, const RefusalRecorder& record_refusal) {
  const CrawlManifest& m = resume_->manifest;
  stats_.add_saved(stats_to_resume(m.stats, replay.last_stats));
  records_->replay(replay);
  if (resume_->frontier_lost) requeue_from_records(record_refusal);
  for (const std::string& problem : replay.problems) spdlog::warn("journal: {} (ignored from there on)", problem);
  journal_problems_ = replay.problems;
  outputs_lost_ = replay.outputs_lost.size();
  if (outputs_lost_.load() > 0) {
    spdlog::warn("journal: {} pages marked done have outputs that did not reach the disk: fetched again",
                 outputs_lost_.load());
  }
  for (const AdmittedRecord& a : replay.admitted) {
    const QueuedUrl q = decode_queued_url(a.entry);
    const std::string_view url = q.url;
    filter_.insert(url);
    if (audit_) audit_->record(audit_hash(url), true);
    if (resume_->frontier_lost) continue;  // requeue_from_records() queued what is still queued
    // A link the frontier refused has its record in pages.jsonl, written before its admitted
    // record but perhaps lost with its page's outputs: while its page is to be fetched again (which
    // finds the link seen), it is queued again or its refusal recorded again.
    const std::string parent(q.parent);
    if (!a.queued && !replay.outstanding.contains(parent) && !replay.outputs_lost.contains(parent)) continue;
    if (AdmitResult r = frontier_.requeue(a.host, a.entry, a.depth);
        r != AdmitResult::kQueued && !replay.completed.contains(std::string(url))) {
      record_refusal(a.host, a.entry, a.depth, r);
    }
  }
  // After every admission: a "seen" journaled by a worker that raced the URL's admitting one
  // (audit_set.h) is withdrawn here as it was in the crawl.
  if (audit_) {
    for (uint64_t h : replay.audit_false_positives) audit_->record(h, false);
  }
  stats_.pages_fetched += replay.pages_fetched;
  stats_.bytes_received += replay.bytes_received;
  stats_.fetch_ms_total += replay.fetch_ms_total;
  stats_.status_2xx += replay.status_counts[2];
  stats_.status_3xx += replay.status_counts[3];
  stats_.status_4xx += replay.status_counts[4];
  stats_.status_5xx += replay.status_counts[5];
  refetched_after_crash_ += replay.refetched;
  replayed_done_ = std::move(replay.completed);
  crash_outstanding_ = std::move(replay.outstanding);
}

void CrawlCheckpointer::requeue_from_records(const RefusalRecorder& record_refusal) {
  uint64_t requeued = 0;
  records_->for_each_queued([&](std::string_view url, uint32_t depth) {
    const CanonicalUrl c = canonicalize(url, nullptr, settings_.canonicalize);
    const std::string host = c.ok() ? c.host : std::string(url);
    const std::string entry = encode_queued_url({url, "", 0, false});  // the parent is not in the record
    if (AdmitResult r = frontier_.requeue(host, entry, depth); r != AdmitResult::kQueued) {
      record_refusal(host, entry, depth, r);
    } else {
      ++requeued;
    }
  });
  spdlog::warn("{}: the frontier was rebuilt from the URL records: {} URLs queued again",
               settings_.checkpoint.directory.string(), requeued);
}

bool CrawlCheckpointer::skip_replayed(const Lease& lease, std::string_view url) {
  if (replayed_done_.empty()) return false;
  auto it = replayed_done_.find(std::string(url));
  if (it == replayed_done_.end()) return false;
  replayed_done_.erase(it);
  // Completed long ago as far as politeness goes: the host's clock is not pushed forward.
  frontier_.complete(lease, Clock::time_point{}, HostOutcome::ok());
  return true;
}

void CrawlCheckpointer::journal(const JournalBatch& batch) {
  if (journal_ && !batch.empty()) journal_->append(batch);
}

void CrawlCheckpointer::journal_admissions(const JournalBatch& batch) {
  if (journal_ && !batch.empty()) journal_->append_now(batch);
}

void CrawlCheckpointer::sync_journal() {
  if (journal_) journal_->sync();
}

void CrawlCheckpointer::on_page_dispatched(uint64_t id, const FrontierUrl& entry, std::string_view url) {
  if (!crash_outstanding_.empty() && crash_outstanding_.erase(std::string(url))) ++refetched_after_crash_;
  if (!journal_) return;
  {
    std::lock_guard<std::mutex> lock(outstanding_mu_);
    auto [it, added] = outstanding_.emplace(id, Outstanding{.entry = entry, .url = std::string(url)});
    if (added) outstanding_ids_.emplace(it->second.url, id);
  }
  JournalBatch batch;
  add_record(batch, DispatchedRecord{std::string(url)});
  journal_->append_now(batch);  // claims no output: a kill -9 keeps it, so a refetch is counted
}

void CrawlCheckpointer::on_page_fetched(uint64_t id) {
  std::lock_guard<std::mutex> lock(outstanding_mu_);
  auto it = outstanding_.find(id);
  if (it != outstanding_.end()) it->second.fetched = true;
}

void CrawlCheckpointer::on_page_requeued(uint64_t id) {
  std::lock_guard<std::mutex> lock(outstanding_mu_);
  if (auto it = outstanding_.find(id); it != outstanding_.end()) take_outstanding(it);
}

CrawlCheckpointer::Outstanding CrawlCheckpointer::take_outstanding(
    std::unordered_map<uint64_t, Outstanding>::iterator it) {
  outstanding_ids_.erase(it->second.url);
  Outstanding o = std::move(it->second);
  outstanding_.erase(it);
  return o;
}

void CrawlCheckpointer::on_page_archived(uint64_t id, WarcMark mark) {
  if (!enabled()) return;
  std::lock_guard<std::mutex> lock(outstanding_mu_);
  if (auto it = outstanding_.find(id); it != outstanding_.end()) {
    it->second.outputs.warc_file = std::move(mark.file);
    it->second.outputs.warc_end = mark.end;
  }
}

void CrawlCheckpointer::on_page_duplicate(uint64_t id, std::string first) {
  if (!enabled()) return;
  std::lock_guard<std::mutex> lock(outstanding_mu_);
  if (auto it = outstanding_.find(id); it != outstanding_.end()) it->second.duplicate_of = std::move(first);
}

void CrawlCheckpointer::on_record_written(std::string_view url, const PageLogEnds& ends) {
  if (!enabled()) return;
  std::lock_guard<std::mutex> lock(outstanding_mu_);
  auto id = outstanding_ids_.find(url);
  if (id == outstanding_ids_.end()) return;  // a refused link's record, or one written at a stop
  Outstanding& o = outstanding_.at(id->second);
  o.written = true;
  o.outputs.pages_end = ends.pages;
  o.outputs.edges_end = ends.edges;
}

CompletedRecord CrawlCheckpointer::completed_record_of(const FetchResult& result) {
  const bool responded = result.outcome == FetchOutcome::kOk;
  return CompletedRecord{.status = responded ? uint32_t(result.status) : 0u,
                         .bytes = responded ? uint64_t(result.body_decoded_bytes) : 0u,
                         .fetch_ms = responded ? uint32_t(result.total_ms) : 0u,
                         .outcome = fetch_outcome_name(result.outcome),
                         .fetched_ms = unix_ms(result.fetch_time),
                         .payload_digest = result.payload_digest,
                         .truncated = result.body_truncated,
                         .etag = result.etag,
                         .last_modified = result.last_modified};
}

void CrawlCheckpointer::on_page_processed(uint64_t id, CompletedRecord record) {
  if (!journal_) return;
  Outstanding o;
  {
    std::lock_guard<std::mutex> lock(outstanding_mu_);
    auto it = outstanding_.find(id);
    if (it == outstanding_.end()) return;
    o = take_outstanding(it);
  }
  record.url = std::move(o.url);
  if (o.written) record.outputs = std::move(o.outputs);
  record.duplicate_of = std::move(o.duplicate_of);
  JournalBatch batch;
  add_record(batch, record);
  // With no output to wait for, or with where its outputs ended (a resume checks them), the record
  // is written at once; otherwise it waits for the group commit, which syncs the outputs first.
  if (o.written || (!page_log_ && !warc_)) {
    journal_->append_now(batch);
  } else {
    journal(batch);
  }
}

void CrawlCheckpointer::audit_outcomes(const std::vector<std::string_view>& keys,
                                       const std::vector<InsertOutcome>& outcomes, JournalBatch& batch) {
  if (!audit_) return;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (outcomes[i] == InsertOutcome::kFull) continue;  // recorded nowhere
    const uint64_t h = audit_hash(keys[i]);
    // A page wrongly skipped, unless another worker's "new" for it is still on its way: journaled
    // so a resume keeps it (and withdraws it the same way).
    if (audit_->record(h, outcomes[i] == InsertOutcome::kNew) && journal_) {
      add_record(batch, AuditFalsePositiveRecord{h});
    }
  }
}

nlohmann::json CrawlCheckpointer::saved_stats() const {
  nlohmann::json out = stats_.to_json();
  out["fetches"]["fetch_ms_total"] = stats_.fetch_ms_total.load();
  return out;
}

void CrawlCheckpointer::maybe_checkpoint() {
  if (!enabled()) return;
  const auto now = std::chrono::steady_clock::now();
  // Learned parameter rules are crawl state (docs/content-seen.md): journaled as soon as they change.
  if (journal_ && (now - last_stats_record_ >= std::chrono::seconds(1) || stats_.take_param_rules_changed())) {
    // Only the scheduler thread swaps journal_, and this is it: no gate pass needed.
    JournalBatch batch;
    add_record(batch, StatsRecord{saved_stats().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)});
    journal_->append(batch);
    last_stats_record_ = now;
  }
  if (writing_.load()) return;  // the previous generation is still being written
  const CrawlCheckpointSettings& c = settings_.checkpoint;
  const bool by_time = c.interval.count() > 0 && now - last_checkpoint_ >= c.interval;
  const bool by_pages =
      c.interval_pages > 0 && stats_.pages_fetched.load() - pages_at_last_checkpoint_ >= c.interval_pages;
  if (!by_time && !by_pages) return;
  try {
    take_checkpoint(false);
  } catch (const std::exception& e) {
    // Nothing was cut: the current journal goes on covering everything since the last generation.
    spdlog::error("checkpoint skipped: {}", e.what());
    checkpoint_failed(e.what());
    last_checkpoint_ = now;
    pages_at_last_checkpoint_ = stats_.pages_fetched.load();
  }
}

DiskCheckpointCut CrawlCheckpointer::cut_checkpoint(CrawlCheckpoint& cp, std::unique_ptr<JournalWriter>& journal) {
  CrawlManifest& m = cp.manifest;
  DiskCheckpointCut frontier;
  double pause_ms = 0;
  gate_.cut([&] {
    const auto start = std::chrono::steady_clock::now();
    frontier = frontier_.cut_checkpoint();  // written after the pause
    {
      std::lock_guard<std::mutex> lock(outstanding_mu_);
      for (const auto& [id, o] : outstanding_) {
        m.outstanding.push_back(o.url);
        if (o.fetched) m.requeue.push_back(o.entry);
      }
    }
    m.outstanding.insert(m.outstanding.end(), crash_outstanding_.begin(), crash_outstanding_.end());
    m.stats = saved_stats();
    m.counters = {{"resumes", resumes_.load()},
                  {"refetched_after_crash", refetched_after_crash_.load()},
                  {"audit_false_positives", audit_false_positives()}};
    if (audit_) {
      cp.audit_enabled = true;
      cp.audit = audit_->hashes();  // sorted after the pause
    }
    m.pages_done = stats_.pages_fetched.load();
    journal_.swap(journal);
    pause_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  });
  m.generation = generation_.load();
  m.key_hash = settings_.checkpoint.key_hash;
  m.config = settings_.checkpoint.config;
  m.queued = frontier.queued;
  std::lock_guard<std::mutex> lock(written_mu_);
  written_.last_pause_ms = pause_ms;
  written_.max_pause_ms = std::max(written_.max_pause_ms, pause_ms);
  return frontier;
}

void CrawlCheckpointer::finish_checkpoint(CrawlCheckpoint& cp, DiskCheckpointCut& frontier, JournalWriter& journal) {
  // First, so that the cut always ends (its deferred deletes applied), whatever fails later.
  const FrontierCheckpointStats written = frontier_.write_checkpoint(
      frontier, settings_.checkpoint.directory / frontier_directory_name(cp.manifest.generation));
  {
    std::lock_guard<std::mutex> lock(written_mu_);
    written_.frontier_lock_ms = std::chrono::duration<double, std::milli>(written.pause - frontier.pause).count();
  }
  // The filter is copied while the crawl goes on, so the copy holds every key admitted before the
  // cut and perhaps some admitted after it. Those are in `journal` (the one the cut opened), and
  // a resume replays their admitted records, queueing them whether or not the filter knew them.
  // For that to hold after a power loss too, those records must be on disk before this
  // generation is committed: wait until every pass that may have inserted into the copy has
  // appended its records (a pass inserts, then journals), then sync.
  // A journal that disabled itself (a failed write or fdatasync) may lack records of keys in the
  // copy: sync() throws, and the generation is not committed.
  cp.filter = filter_.snapshot();
  // The records likewise, after the cut: a replay over them is idempotent (crawl_records.h).
  const std::filesystem::path records =
      settings_.checkpoint.directory / record_store_directory_name(cp.manifest.generation);
  std::filesystem::remove_all(records);  // a failed save's
  records_->checkpoint_to(records);
  gate_.cut([] {});
  throw_if_refused();  // a pass that half admitted a page's links has ended by now and said so
  // The pages this generation counts done were processed before the cut, their records written
  // then: durable before the generation commits, whatever became of the previous journal.
  sync_outputs();
  journal.sync();
  std::sort(cp.audit.begin(), cp.audit.end());
}

void CrawlCheckpointer::take_checkpoint(bool wait) {
  if (writer_.joinable()) writer_.join();
  throw_if_refused();
  const auto started = std::chrono::steady_clock::now();  // the checkpoint's duration: pause and writing
  const CrawlCheckpointSettings& c = settings_.checkpoint;
  std::filesystem::create_directories(c.directory);
  generation_ = std::max(generation_.load() + 1, next_generation(c.directory));
  // Created before the pause (it fsyncs). Pages completed before the crash and not yet offered
  // again by the frontier are carried into it, so a later resume still skips them (their
  // records were durable before the journal that marked them done).
  auto next = std::make_unique<JournalWriter>(journal_path(c.directory, generation_.load()), c.journal,
                                              [this] { sync_outputs(); });
  if (!replayed_done_.empty()) {
    JournalBatch carried;
    for (const std::string& url : replayed_done_) add_record(carried, CompletedRecord{.url = url});
    next->append_now(carried);
  }
  auto checkpoint = std::make_shared<CrawlCheckpoint>();
  auto frontier = std::make_shared<DiskCheckpointCut>(cut_checkpoint(*checkpoint, next));
  std::shared_ptr<JournalWriter> previous = std::move(next);  // the journal the cut closed
  // The journal the cut opened: replaced only by the next cut, which joins this writer first.
  JournalWriter* current = journal_.get();
  last_checkpoint_ = std::chrono::steady_clock::now();
  pages_at_last_checkpoint_ = checkpoint->manifest.pages_done;
  writing_ = true;
  auto write = [this, checkpoint, frontier, previous, current, started]() mutable {
    previous.reset();  // committed and closed
    try {
      finish_checkpoint(*checkpoint, *frontier, *current);
      CrawlSaveResult r = save_crawl_checkpoint(*checkpoint, settings_.checkpoint.directory, settings_.checkpoint.keep);
      std::lock_guard<std::mutex> lock(written_mu_);
      ++written_.taken;
      written_.last_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      written_.seconds_total += written_.last_seconds;
      written_.last_bytes = r.bytes_written;
      written_.total_bytes += r.bytes_written;
      written_.last_manifest = r.manifest_file;
      written_.last_failure.clear();
      spdlog::debug("checkpoint {}: {} bytes written", r.manifest_file, r.bytes_written);
    } catch (const std::exception& e) {
      // The crawl goes on: the journal since the last good generation still covers it.
      spdlog::error("checkpoint generation {} not written: {}", checkpoint->manifest.generation, e.what());
      checkpoint_failed(e.what());
    }
    writing_ = false;
  };
  if (wait) {
    write();
  } else {
    writer_ = std::thread(std::move(write));
  }
}

std::string CrawlCheckpointer::failure() const {
  {
    std::lock_guard<std::mutex> lock(written_mu_);
    if (!failure_.empty()) return failure_;
  }
  if (!journal_) return {};
  const std::string journal = journal_->failure();
  return journal.empty() ? journal : journal_->path().string() + ": journal " + journal;
}

nlohmann::json CrawlCheckpointer::report() const {
  std::lock_guard<std::mutex> lock(written_mu_);
  return {{"directory", settings_.checkpoint.directory.string()},
          {"generation", generation_.load()},
          {"manifest", written_.last_manifest},
          {"taken", written_.taken},
          {"failed", written_.failed},
          {"last_pause_ms", written_.last_pause_ms},
          {"max_pause_ms", written_.max_pause_ms},
          {"last_frontier_lock_ms", written_.frontier_lock_ms},
          {"last_bytes_written", written_.last_bytes},
          {"total_bytes_written", written_.total_bytes},
          {"resumes", resumes_.load()},
          {"completed_without_outputs", outputs_lost_.load()},
          {"journal_problems", journal_problems_},
          {"last_failure", written_.last_failure}};
}

std::string CrawlCheckpointer::last_failure() const {
  std::lock_guard<std::mutex> lock(written_mu_);
  return written_.last_failure;
}

void CrawlCheckpointer::sync_outputs() const {
  if (page_log_) page_log_->sync();
  if (warc_) warc_->sync();
}

void CrawlCheckpointer::checkpoint_failed(const std::string& why) {
  std::lock_guard<std::mutex> lock(written_mu_);
  ++written_.failed;
  written_.last_failure = why;
  if (failure_.empty()) failure_ = "checkpoint not written: " + why;
}

nlohmann::json CrawlCheckpointer::totals() const {
  std::lock_guard<std::mutex> lock(written_mu_);
  return {{"taken", written_.taken},
          {"failed", written_.failed},
          {"seconds_total", written_.seconds_total},
          {"last_seconds", written_.last_seconds},
          {"last_pause_ms", written_.last_pause_ms},
          {"max_pause_ms", written_.max_pause_ms},
          {"last_bytes_written", written_.last_bytes},
          {"total_bytes_written", written_.total_bytes}};
}

}  // namespace bloomcrawl
