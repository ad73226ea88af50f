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

}  // namespace bloomcrawl
