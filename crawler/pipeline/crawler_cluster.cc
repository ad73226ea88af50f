// The crawler's side of cluster mode (docs/cluster.md): links to hosts other nodes own leave
// through their inboxes, links other nodes send arrive through this node's inbox and are admitted
// like any link, and the crawl ends when the whole cluster has no work.
#include <algorithm>
#include <fstream>

#include <spdlog/spdlog.h>

#include "base/data_error.h"
#include "crawler/cluster/cluster_link.h"
#include "crawler/cluster/cluster_outbox.h"
#include "crawler/persist/journal.h"
#include "crawler/persist/journal_records.h"
#include "crawler/pipeline/crawl_checkpoint_gate.h"
#include "crawler/pipeline/crawl_checkpointer.h"
#include "crawler/pipeline/crawler.h"
#include "crawler/pipeline/queued_url.h"
#include "crawler/url/canonical.h"
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
// The outbox sends an owner's links once this many wait for it, or once the oldest has waited this
// long: a few XADDs per owner a second instead of one per page (bench/results/cluster.md). The age
// also bounds how long a page stays outstanding after its processing (mark_processed_once_sent()).
constexpr size_t kOutboxUrls = 256;
constexpr std::chrono::milliseconds kOutboxAge{50};

// Whether `url` is one of the crawl's seeds, which are in scope by definition (Crawler::seed()): a
// seed of a host this node owns arrives through its inbox, as a depth-0 batch.
bool is_seed(const CrawlerSettings& settings, std::string_view url) {
  return std::ranges::any_of(settings.seeds, [&](const std::string& seed) {
    const CanonicalUrl c = canonicalize(seed, nullptr, settings.canonicalize);
    return c.ok() && c.url == url;
  });
}

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
  // Sent before the page's processing is journaled (mark_processed_once_sent()): a crash before
  // that fetches the page again and sends its links again, which the owner's seen filter absorbs.
  for (uint32_t node = 0; node < outgoing.size(); ++node) {
    if (!outgoing[node].urls.empty()) outbox_->add(node, std::move(outgoing[node]));
  }
}

void Crawler::start_outbox() {
  outbox_ = std::make_unique<ClusterOutbox>(*cluster_, kOutboxUrls, kOutboxAge, [this](const std::string& why) {
    fail(settings_.cluster.redis.url() + ": links not sent: " + why);
  });
}

bool Crawler::mark_processed_once_sent(const FetchResult& result) {
  if (!outbox_ || !checkpointer_->enabled()) return false;
  // The thread's last batch covers this page's links (it may be an earlier page's: waiting for it
  // too only delays this page's record).
  const uint64_t ticket = outbox_->last_ticket();
  if (ticket == 0) return false;
  return outbox_->after_send(ticket, [this, id = result.id, url = result.url,
                                      done = CrawlCheckpointer::completed_record_of(result)]() mutable {
    CheckpointGate::Pass pass(checkpointer_->gate());
    try {
      checkpointer_->on_page_processed(id, std::move(done));
    } catch (const CheckpointError& e) {
      fail(e.what());  // the page stays outstanding, as in mark_processed()
    } catch (const std::exception& e) {
      spdlog::error("{}: recorded, but not marked done for a resume: {}", url, e.what());
    }
  });
}

void Crawler::wait_for_sends(uint64_t ticket_before) {
  if (!outbox_) return;
  const uint64_t ticket = outbox_->last_ticket();
  if (ticket != ticket_before) outbox_->wait_sent(ticket);
}

uint64_t Crawler::sends_so_far() const { return outbox_ ? outbox_->last_ticket() : 0; }

void Crawler::admit_seen(const RoutedBatch& b) {
  std::vector<std::string_view> keys;
  keys.reserve(b.urls.size());
  for (const RoutedUrl& u : b.urls) keys.push_back(u.url);
  std::vector<InsertOutcome> outcomes(keys.size());
  checkpointer_->records().admit_handed_over(filter_, keys, outcomes, b.depth, b.parent);
  JournalBatch batch;
  checkpointer_->audit_outcomes(keys, outcomes, batch);
  if (checkpointer_->journaling()) {
    for (size_t i = 0; i < b.urls.size(); ++i) {
      if (outcomes[i] != InsertOutcome::kNew) continue;
      const RoutedUrl& u = b.urls[i];
      // Not queued: a resume's replay puts it in the filter only, as a URL the frontier refused.
      add_record(batch, AdmittedRecord{u.host, encode_queued_url({u.url, b.parent, b.hops, u.sitemap}), b.depth, false,
                                       unix_ms(std::chrono::system_clock::now()), std::string(kHandedOver)});
    }
  }
  checkpointer_->journal_admissions(batch);
}

void Crawler::join_grown_cluster() {
  // What a resumed node recorded is, with its frontier (handed over URL by URL as it is popped,
  // hand_over()), everything its seen filter holds of the hosts it gave up.
  if (checkpointer_->resuming()) {
    constexpr size_t kBatch = 256;
    std::vector<RoutedBatch> outgoing(settings_.cluster.nodes, RoutedBatch{0, 0, "", {}, true});
    auto send = [&](uint32_t node) {
      if (outgoing[node].urls.empty()) return;
      cluster_->send(node, {outgoing[node]});
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
    cluster_->send(owner, {batch});
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
  } catch (const std::exception& e) {  // a store error, bad_alloc: the same clean stop, never std::terminate
    fail(std::string("cluster inbox: URLs from other nodes not admitted: ") + e.what());
  } catch (...) {
    fail("cluster inbox: URLs from other nodes not admitted: an unknown exception");
  }
}

void Crawler::admit_from_inbox(const std::vector<InboxEntry>& entries) {
  const uint64_t sends_before = sends_so_far();
  {
    // One pass: no checkpoint swaps the journal between the records and their sync.
    CheckpointGate::Pass pass(checkpointer_->gate());
    for (const InboxEntry& entry : entries) {
      for (const RoutedBatch& b : entry.batches) {
        if (b.seen_only) {
          admit_seen(b);
          continue;
        }
        // Like any link: canonical and in this node's scope (a sender's scope may differ, its seeds
        // are its own; and whoever can write to Redis can write here). Dropped ones are counted.
        std::vector<Candidate> candidates;
        for (const RoutedUrl& u : b.urls) {
          if (b.depth == 0 && is_seed(settings_, u.url)) {
            candidates.push_back({u.url, u.host, static_cast<LinkKind>(u.kind), u.sitemap});
            continue;
          }
          std::optional<Candidate> c = candidate(u.url, nullptr, static_cast<LinkKind>(u.kind));
          if (!c) continue;
          c->sitemap = u.sitemap;
          candidates.push_back(std::move(*c));
        }
        admit(candidates, b.depth, b.parent, b.hops);
      }
    }
    // The acknowledgement deletes the entries from Redis: the admitted URLs must survive a power
    // loss first, not only this process (a CheckpointError here leaves them in the inbox).
    checkpointer_->sync_journal();
  }
  // Links this node passed on to others (none, while every node runs the same N) leave first.
  wait_for_sends(sends_before);
  cluster_->acknowledge(entries);
}

bool Crawler::crawl_over() {
  if (!cluster_) return finished() && !keep_revisiting();
  try {
    // finished() first: a page's links are in the outbox before the page stops being pending.
    const auto locally_idle = [this] { return finished() && outbox_->idle(); };
    if (revisit_in_round(locally_idle)) return false;
    const RoundEnd end = cluster_->finished(locally_idle);
    return end != RoundEnd::kRunning && !keep_revisiting_in_cluster(end);
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
  c.dead_letters = cluster_->dead_letters();
  c.next_due_ms = stats_.revisits.next_due_ms.load();
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
                       {"dead_letters", cluster_->dead_letters()},
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
