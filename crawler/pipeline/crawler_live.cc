// Crawler::live_report(): report()'s counters without its scans, plus what only a live view needs
// (the latency histogram, the recent errors, the frontier's gauges). Reads only what is safe from
// another thread: the stats' atomics and locks, the filter's and the frontier's own locked stats,
// the checkpointer's totals, and settings fixed at construction.
#include "crawler/persist/audit_set.h"
#include "crawler/pipeline/crawl_checkpointer.h"
#include "crawler/pipeline/crawler.h"

namespace bloomcrawl {

nlohmann::json Crawler::live_report() const {
  nlohmann::json out = stats_.to_json();
  const FetchLatency::Snapshot latency = stats_.fetch_latency.snapshot();
  std::vector<double> bounds(FetchLatency::kBounds.begin(), FetchLatency::kBounds.end());
  out["fetch_latency"] = {{"bounds_seconds", bounds},
                          {"cumulative", latency.cumulative},
                          {"count", latency.count},
                          {"sum_seconds", latency.sum_seconds}};
  out["recent_errors"] = stats_.recent_errors.to_json();

  const SeenFilterStats fs = filter_.stats(/*compute_fill=*/false);
  uint64_t capacity = 0;
  for (const auto& l : fs.layers) capacity += l.capacity;
  out["seen_filter"] = {{"keys", fs.keys},
                        {"capacity", capacity},
                        {"layers", fs.layers.size()},
                        {"bytes", fs.bytes},
                        {"estimated_fpr", fs.estimated_fpr},
                        {"estimated_false_positives", fs.estimated_false_positives},
                        {"full", fs.full}};
  const FrontierStats f = frontier_.stats(/*compute_memory=*/false);
  out["frontier"] = {
      {"queued", f.queued}, {"hosts", f.hosts}, {"ready_hosts", f.ready_queue_size}, {"in_flight", f.in_flight}};
  out["limits"] = {{"max_pages", settings_.frontier.max_pages}};
  if (checkpointer_->audit()) out["audit"] = {{"false_positives", checkpointer_->audit_false_positives()}};
  if (checkpointer_->enabled()) out["checkpoint"] = checkpointer_->totals();
  return out;
}

// Twice a second on the scheduler thread (and each second on the monitor's): nothing here may scan
// the filter's bits or every host.
CrawlStatus Crawler::sample_status() const {
  CrawlStatus s;
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  s.pages = stats_.pages_fetched.load();
  s.pages_this_run = s.pages - pages_before_run_;
  s.pages_per_second = s.seconds > 0 ? double(s.pages_this_run) / s.seconds : 0.0;
  s.in_flight = fetcher_ ? fetcher_->in_flight() : 0;
  const FrontierStats f = frontier_.stats(/*compute_memory=*/false);
  s.queued = f.queued;
  s.hosts = f.hosts;
  const SeenFilterStats fs = filter_.stats(/*compute_fill=*/false);
  s.filter_keys = fs.keys;
  for (const auto& l : fs.layers) s.filter_capacity += l.capacity;
  s.filter_layers = fs.layers.size();
  s.filter_bytes = fs.bytes;
  s.duplicates_avoided = stats_.links_duplicate.load() + stats_.redirects_deduplicated.load();
  stats_.to_status(s);
  s.output_directory = settings_.output_dir.string();
  s.checkpoint_directory = settings_.checkpoint.directory.string();
  return s;
}

}  // namespace bloomcrawl
