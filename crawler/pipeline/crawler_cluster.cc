// The crawler's side of cluster mode (docs/cluster.md): links to hosts other nodes own leave
// through their inboxes, links other nodes send arrive through this node's inbox and are admitted
// like any link, and the crawl ends when the whole cluster has no work.
#include <fstream>

#include <spdlog/spdlog.h>

#include "base/data_error.h"
#include "crawler/cluster/cluster_link.h"
#include "crawler/persist/journal.h"
#include "crawler/persist/journal_records.h"
#include "crawler/pipeline/crawl_checkpoint_gate.h"
#include "crawler/pipeline/crawl_checkpointer.h"
#include "crawler/pipeline/crawler.h"
#include "crawler/pipeline/queued_url.h"
#include "crawler/url/url.h"

namespace bloomcrawl {
namespace {

// How long the inbox thread waits in one read: also how soon it sees stop_inbox().
constexpr std::chrono::milliseconds kInboxWait{100};
// Counters are published this often; a running node's liveness key outlives three intervals, a
// draining one's the longest drain (cancelled transfers, the final checkpoint) we wait for.
constexpr std::chrono::milliseconds kPublishInterval{1000};
constexpr std::chrono::milliseconds kRunningAlive{3000};
constexpr std::chrono::milliseconds kStoppingAlive{60000};
// How long a node waits for the other live nodes' final reports.
constexpr std::chrono::milliseconds kReportWait{30000};

}  // namespace

void Crawler::route_to_owners(std::vector<Candidate>& candidates, uint32_t depth, const std::string& parent,
                              uint32_t hops) {
  std::vector<RoutedBatch> outgoing(settings_.cluster.nodes, RoutedBatch{depth, hops, parent, {}});
  std::erase_if(candidates, [&](Candidate& c) {
    const uint32_t owner = cluster_->owner(c.host);
    if (owner == settings_.cluster.node) return false;
    outgoing[owner].urls.push_back({std::move(c.url), std::move(c.host), static_cast<int>(c.kind), c.sitemap});
    return true;
  });
  // Sent before the page's processing is journaled: a crash before that fetches the page again
  // and sends its links again, which the owner's seen filter absorbs.
  for (uint32_t node = 0; node < outgoing.size(); ++node) {
    if (outgoing[node].urls.empty()) continue;
    try {
      cluster_->send(node, outgoing[node]);
    } catch (const RedisError& e) {
      throw CheckpointError(settings_.cluster.redis.url(), std::string("links not sent: ") + e.what());
    }
  }
}

void Crawler::admit_seen(const RoutedBatch& b) {
  std::vector<std::string_view> keys;
  keys.reserve(b.urls.size());
  for (const RoutedUrl& u : b.urls) keys.push_back(u.url);
  std::vector<InsertOutcome> outcomes(keys.size());
  filter_.insert_batch(keys, outcomes);
  JournalBatch batch;
  checkpointer_->audit_outcomes(keys, outcomes, batch);
  if (checkpointer_->journaling()) {
    for (size_t i = 0; i < b.urls.size(); ++i) {
      if (outcomes[i] != InsertOutcome::kNew) continue;
      const RoutedUrl& u = b.urls[i];
      // Not queued: a resume's replay puts it in the filter only, as a URL the frontier refused.
      add_record(batch,
                 AdmittedRecord{u.host, encode_queued_url({u.url, b.parent, b.hops, u.sitemap}), b.depth, false});
    }
  }
  checkpointer_->journal(batch);
}

void Crawler::join_grown_cluster() {
  // What a resumed node recorded is, with its frontier (handed over URL by URL as it is popped,
  // hand_over()), everything its seen filter holds of the hosts it gave up.
  if (checkpointer_->resuming()) {
    constexpr size_t kBatch = 256;
    std::vector<RoutedBatch> outgoing(settings_.cluster.nodes, RoutedBatch{0, 0, "", {}, true});
    auto send = [&](uint32_t node) {
      if (outgoing[node].urls.empty()) return;
      cluster_->send(node, outgoing[node]);
      seen_handed_over_ += outgoing[node].urls.size();
      outgoing[node].urls.clear();
    };
    std::ifstream in(settings_.output_dir / "pages.jsonl");
    for (std::string line; std::getline(in, line);) {
      const nlohmann::json record = nlohmann::json::parse(line, nullptr, false);
      if (!record.is_object() || !record.contains("url") || !record["url"].is_string()) continue;  // a torn tail
      const std::string url = record["url"].get<std::string>();
      const std::optional<Url> parsed = parse_url(url);
      if (!parsed) continue;
      const std::string host = parsed->origin_host_port();
      const uint32_t owner = cluster_->owner(host);
      if (owner == settings_.cluster.node) continue;
      outgoing[owner].urls.push_back({url, host, static_cast<int>(LinkKind::kAnchor), false});
      if (outgoing[owner].urls.size() >= kBatch) send(owner);
    }
    for (uint32_t node = 0; node < outgoing.size(); ++node) send(node);
    cluster_->handed_over();
    spdlog::info("cluster grew to {} nodes: {} recorded URLs handed over", settings_.cluster.nodes, seen_handed_over_);
  }
  cluster_->wait_for_handovers();
}

bool Crawler::hand_over(const Lease& lease, const QueuedUrl& q) {
  const uint32_t owner = cluster_->owner(lease.entry.host);
  if (owner == settings_.cluster.node) return false;
  RoutedBatch batch{lease.entry.depth, q.redirect_hops, std::string(q.parent), {}};
  batch.urls.push_back({std::string(q.url), lease.entry.host, static_cast<int>(LinkKind::kAnchor), q.sitemap});
  try {
    cluster_->send(owner, batch);
  } catch (const RedisError& e) {
    frontier_.release(lease);  // stays queued here: the checkpoint keeps it for a resume
    fail(std::string("cluster: queued URL not handed over: ") + e.what());
    return true;
  }
  // Not journaled: a crash before the next checkpoint hands it over again, and the owner's seen
  // filter absorbs the second copy. drop() leaves the host's clock alone, so its next URL follows now.
  frontier_.drop(lease);
  ++handed_over_;
  return true;
}

void Crawler::start_inbox() {
  if (!cluster_) return;
  inbox_thread_ = std::thread([this] { receive_from_nodes(); });
}

void Crawler::stop_inbox() {
  inbox_exit_.store(true);
  if (inbox_thread_.joinable()) inbox_thread_.join();
}

void Crawler::receive_from_nodes() {
  try {
    while (!inbox_exit_.load() && !stop_requested_.load() && !failed_.load()) {
      std::vector<InboxEntry> entries = cluster_->receive(kInboxWait);
      // Entries taken after a stop stay unacknowledged: a resume reads them again.
      if (entries.empty() || stop_requested_.load()) continue;
      pending_.fetch_add(1);  // the node is not idle while it admits them
      try {
        admit_from_inbox(entries);
      } catch (...) {
        work_done();
        throw;
      }
      work_done();
    }
  } catch (const CheckpointError& e) {
    fail(e.what());
  } catch (const RedisError& e) {
    fail(std::string("cluster inbox: ") + e.what());
  }
}

void Crawler::admit_from_inbox(const std::vector<InboxEntry>& entries) {
  {
    // One pass: no checkpoint swaps the journal between the records and their sync.
    CheckpointGate::Pass pass(checkpointer_->gate());
    for (const InboxEntry& entry : entries) {
      std::vector<Candidate> candidates;
      for (const RoutedUrl& u : entry.batch.urls) {
        candidates.push_back({u.url, u.host, static_cast<LinkKind>(u.kind), u.sitemap});
      }
      if (entry.batch.seen_only) {
        admit_seen(entry.batch);
      } else {
        admit(candidates, entry.batch.depth, entry.batch.parent, entry.batch.hops);
      }
    }
    // The acknowledgement deletes the entries from Redis: the admitted URLs must survive a power
    // loss first, not only this process (a CheckpointError here leaves them in the inbox).
    checkpointer_->sync_journal();
  }
  cluster_->acknowledge(entries);
}

bool Crawler::crawl_over() {
  if (!cluster_) return finished();
  try {
    return cluster_->finished([this] { return finished(); });
  } catch (const RedisError& e) {
    fail(std::string("cluster end test: ") + e.what());
    return true;
  }
}

}  // namespace bloomcrawl

namespace bloomcrawl {

void Crawler::publish_counters(const char* state) {
  const auto now = std::chrono::steady_clock::now();
  if (last_publish_ == std::chrono::steady_clock::time_point{}) {  // the run's first: its rate since the start
    last_publish_ = started_;
    pages_at_publish_ = pages_before_run_;
  }
  const uint64_t pages = stats_.pages_fetched.load();
  const double seconds = std::chrono::duration<double>(now - last_publish_).count();
  NodeCounters c;
  c.pages = pages;
  c.pages_per_second = seconds > 0 ? double(pages - pages_at_publish_) / seconds : 0.0;
  c.queued = frontier_.stats(/*compute_memory=*/false).queued;
  c.in_flight = fetcher_ ? fetcher_->in_flight() : 0;
  c.duplicates_avoided = stats_.links_duplicate.load() + stats_.redirects_deduplicated.load();
  c.filter_keys = filter_.stats(/*compute_fill=*/false).keys;
  c.state = state;
  last_publish_ = now;
  pages_at_publish_ = pages;
  const std::string_view s(state);
  const std::chrono::milliseconds alive_for = s == "running"    ? kRunningAlive
                                              : s == "stopping" ? kStoppingAlive
                                                                : std::chrono::milliseconds{0};
  try {
    const bool stop_asked = cluster_->publish(c, alive_for);
    if (stop_asked && s == "running" && !cluster_stop_.exchange(true)) {
      spdlog::warn("bloomcrawl stop --cluster: stopping; the crawl report follows");
      stop();
    }
  } catch (const RedisError& e) {
    spdlog::warn("cluster counters not published: {}", e.what());
  }
}

void Crawler::tick_cluster() {
  if (std::chrono::steady_clock::now() - last_publish_ < kPublishInterval) return;
  publish_counters("running");
}

void Crawler::finish_cluster(nlohmann::json& report) {
  report["cluster"] = {{"node", settings_.cluster.node},
                       {"nodes", settings_.cluster.nodes},
                       {"batches_sent", cluster_->batches_sent()},
                       {"urls_sent", cluster_->urls_sent()},
                       {"batches_received", cluster_->batches_received()},
                       {"urls_handed_over", handed_over_},
                       {"recorded_urls_handed_over", seen_handed_over_}};
  try {
    cluster_->store_report(report);
  } catch (const RedisError& e) {
    spdlog::error("report not stored in the cluster: {}", e.what());
  }
  // After the report: a node waiting for the cluster's reports sees this one's, then its end.
  publish_counters(report["crawl"]["stopped_by"] == "done" ? "done" : "stopped");
  try {
    cluster_report_ = cluster_->gather_reports(kReportWait);
  } catch (const RedisError& e) {
    spdlog::error("cluster report not gathered: {}", e.what());
  }
}

}  // namespace bloomcrawl
