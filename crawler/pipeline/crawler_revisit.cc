// Crawler's revisits of known pages (crawler.h, docs/recrawl.md "Revisits in the crawl"): the due
// records queued through the frontier, the conditional request, the outcome words and the WARC
// revisit records. The records' side is crawl_records.cc, the rules revisit_records.h.
#include <spdlog/spdlog.h>

#include "base/data_error.h"
#include "crawler/output/page_log.h"
#include "crawler/output/timestamp.h"
#include "crawler/output/warc_revisit.h"
#include "crawler/persist/journal_records.h"
#include "crawler/pipeline/crawl_checkpointer.h"
#include "crawler/pipeline/crawl_records.h"
#include "crawler/pipeline/crawler.h"
#include "crawler/pipeline/queued_url.h"
#include "crawler/pipeline/revisit_records.h"
#include "crawler/url/canonical.h"

namespace bloomcrawl {
namespace {

// A continuous crawl with nothing queued reads the records for due ones at most this often.
constexpr std::chrono::seconds kIdleScanInterval{1};
constexpr int64_t kHourMs = int64_t{3600} * 1000;

// The report's and the status's next due time and the count due within the hour.
void publish_due(const CrawlRecords::DueSummary& summary, RevisitStats& revisits) {
  revisits.next_due_ms.store(summary.next_ms, std::memory_order_relaxed);
  revisits.due_within_hour.store(summary.within_window, std::memory_order_relaxed);
}

}  // namespace

size_t Crawler::queue_due_revisits() {
  if (!settings_.recrawl.enabled) return 0;
  const int64_t now_ms = unix_ms(std::chrono::system_clock::now());
  const bool all = settings_.revisit_all && !revisit_all_taken_;
  revisit_all_taken_ = true;
  CrawlRecords& records = checkpointer_->records();
  const auto [due, summary] = records.take_due(now_ms, all, kHourMs);
  JournalBatch batch;
  size_t queued_now = 0;
  std::vector<std::pair<std::string, std::string>> new_hosts;  // host, a URL of it
  for (const CrawlRecords::Due& d : due) {
    const CanonicalUrl c = canonicalize(d.url, nullptr, settings_.canonicalize);
    const std::string host = c.ok() ? c.host : d.url;
    std::string entry = encode_queued_url({d.url, "", 0, d.sitemap});  // the record keeps no parent URL
    bool new_host = false;
    const AdmitResult r = frontier_.push(host, entry, d.depth, &new_host);
    // As admit_new(): a refusal whose record cannot be written stays queued for a resume.
    const bool kept = r != AdmitResult::kQueued && !record_refusal(d.url, "", d.depth, r);
    if (kept) frontier_.keep(host, entry, d.depth);
    const bool queued = r == AdmitResult::kQueued || kept;
    if (checkpointer_->journaling()) {
      add_record(batch,
                 AdmittedRecord{host, std::move(entry), d.depth, queued, now_ms, queued ? "" : refusal_outcome(r)});
    }
    if (r == AdmitResult::kQueued) {
      stats_.revisits.queued.fetch_add(1, std::memory_order_relaxed);
      ++queued_now;
    }
    if (new_host && settings_.obey_robots) new_hosts.emplace_back(host, d.url);
  }
  const Clock::time_point now = Clock::now();
  for (const auto& [host, url] : new_hosts) {
    if (robots_verdict(host, url, now).kind != RobotsVerdict::Kind::kWait) frontier_.release_host(host);
  }
  checkpointer_->journal_admissions(batch);
  publish_due(summary, stats_.revisits);
  if (!due.empty()) {
    spdlog::info("recrawl: {} known URLs due{}, queued again", due.size(), all ? " (--revisit-all)" : "");
    std::lock_guard<std::mutex> lock(work_mu_);
    scheduler_wake_ = true;
  }
  return queued_now;
}

void Crawler::summarize_due() {
  publish_due(checkpointer_->records().due_summary(unix_ms(std::chrono::system_clock::now()), kHourMs),
              stats_.revisits);
}

bool Crawler::revisits_continue() const {
  return settings_.recrawl.enabled && settings_.recrawl.continuous && !stop_requested_.load() && !failed_.load();
}

size_t Crawler::scan_due_revisits() {
  const auto now = std::chrono::steady_clock::now();
  if (now < next_revisit_scan_) return 0;
  next_revisit_scan_ = now + kIdleScanInterval;
  const bool had_queued = !frontier_.empty_and_idle();
  size_t queued = 0;
  or_fail("recrawl", [&] {
    CheckpointGate::Pass pass(checkpointer_->gate());
    queued = queue_due_revisits();
  });
  if (!had_queued && frontier_.empty_and_idle()) {
    const int64_t next = stats_.revisits.next_due_ms.load();
    spdlog::debug("recrawl: nothing due; next at {}", next ? rfc3339_utc_ms(from_unix_ms(next)) : "never");
  }
  return queued;
}

bool Crawler::keep_revisiting() {
  if (!settings_.recrawl.enabled) return false;
  if (!revisits_continue()) {
    // The crawl ends: the report says when its records fall due.
    or_fail("recrawl", [&] { summarize_due(); });
    return false;
  }
  scan_due_revisits();
  return !failed_.load();
}

// A resumed node of a crawl that revisits starts a revisit round when the cluster's is over, whether
// or not its own records are due: every node takes part in every round, so that the links a changed
// page gives to another node's host are fetched in the round (docs/cluster.md, "Rounds").
RoundStart Crawler::revisit_round_start() const {
  return settings_.recrawl.enabled && checkpointer_->resuming() ? RoundStart::kNextWhenOver : RoundStart::kJoin;
}

bool Crawler::revisit_in_round(const std::function<bool()>& locally_idle) {
  // Queued before the end test can mark this node idle, and the node marked busy in a round (the
  // current one, or the next when it is over) before it fetches them.
  if (!revisits_continue() || !locally_idle() || scan_due_revisits() == 0) return false;
  const int64_t round = cluster_->round();
  if (cluster_->enter_round() != round) spdlog::info("recrawl: revisits in cluster round {}", cluster_->round());
  return true;
}

bool Crawler::keep_revisiting_in_cluster(RoundEnd end) {
  if (!keep_revisiting()) return false;
  if (end == RoundEnd::kLater) spdlog::info("recrawl: joined cluster round {}", cluster_->enter_round());
  return true;
}

void Crawler::prepare_page_fetch(PageRequest& page, FetchRequest& request) {
  if (page.sitemap) request.accept_types_override = "*/*";  // XML under many types, or gzip
  if (!settings_.recrawl.enabled) return;
  page.previous = checkpointer_->records().capture_of(page.url);
  if (page.previous) request.validators = {page.previous->etag, page.previous->last_modified};
}

void Crawler::set_page_outcome(const PageRequest& page, const FetchResult& result, PageRecord& record) {
  const std::string word = revisit_word(page.previous ? &*page.previous : nullptr, result);
  record.outcome = word.empty() ? fetch_outcome_name(result.outcome) : word;
  if (word == kUntrustedNotModified) {
    record.error = page.previous ? "304 Not Modified to a request that sent no validator: not trusted"
                                 : "304 Not Modified for a URL never fetched: not trusted";
  }
  if (word == kNotModifiedWord) {
    stats_.revisits.bytes_saved.fetch_add(page.previous->body_bytes, std::memory_order_relaxed);
  }
}

bool Crawler::archive_revisit(const PageRequest& page, const FetchResult& result) {
  if (!page.previous) return false;
  // The record that holds the payload: the previous fetch may have been a revisit itself, which
  // holds none, so the digest index's first capture of the payload is the original when it has
  // one (with content_seen.digest on); otherwise the previous fetch.
  std::string original_url = page.url;
  int64_t original_ms = page.previous->last_fetched_ms;
  if (settings_.content_seen.digest) {
    if (std::optional<FirstCapture> first = checkpointer_->records().indexed_capture(page.previous->payload_sha1)) {
      original_url = std::move(first->url);
      original_ms = first->fetched_ms;
    }
  }
  const std::string original_date = rfc3339_utc_ms(from_unix_ms(original_ms));
  const std::string original_digest = payload_digest_of_sha1(page.previous->payload_sha1);
  const std::optional<WarcExchange> exchange = warc_revisit_of(result, {original_url, original_date, original_digest});
  if (!exchange) return false;
  archive(result.id, *exchange);
  return true;
}

}  // namespace bloomcrawl
