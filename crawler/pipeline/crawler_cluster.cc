// The crawler's side of cluster mode (docs/cluster.md): links to hosts other nodes own leave
// through their inboxes, links other nodes send arrive through this node's inbox and are admitted
// like any link, and the crawl ends when the whole cluster has no work.
#include <spdlog/spdlog.h>

#include "base/data_error.h"
#include "crawler/cluster/cluster_link.h"
#include "crawler/persist/journal.h"
#include "crawler/pipeline/crawl_checkpoint_gate.h"
#include "crawler/pipeline/crawl_checkpointer.h"
#include "crawler/pipeline/crawler.h"

namespace bloomcrawl {
namespace {

// How long the inbox thread waits in one read: also how soon it sees stop_inbox().
constexpr std::chrono::milliseconds kInboxWait{100};

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
  for (const InboxEntry& entry : entries) {
    std::vector<Candidate> candidates;
    for (const RoutedUrl& u : entry.batch.urls) {
      candidates.push_back({u.url, u.host, static_cast<LinkKind>(u.kind), u.sitemap});
    }
    CheckpointGate::Pass pass(checkpointer_->gate());
    admit(candidates, entry.batch.depth, entry.batch.parent, entry.batch.hops);
  }
  // admit() has handed the URLs to the journal: they survive this process from now on.
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
