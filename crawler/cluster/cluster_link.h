// ClusterLink: one node's connection to the rest of its cluster through Redis (docs/cluster.md,
// "Key layout" and "End of the crawl"). It knows Redis and the host partition, not the crawler.
//
// Contract:
// - send() puts batches (the links of one page or of many, ClusterOutbox; seeds) in the owner's
//   inbox stream as one entry, with one XADD; it returns once Redis has it.
// - receive() returns entries of this node's inbox through its consumer group: after a start, first
//   the entries delivered before and never acknowledged (id 0), then new ones (id >); after a
//   reconnect the former again, as a lost reply may have delivered entries never seen. An entry
//   stays in the stream until acknowledge() removes it (XACK and XDEL in one script), which the
//   caller does only once the URLs are admitted and journaled, so a crash re-reads it. A malformed
//   entry (no batch, or one that does not decode) is not returned: it is logged, moved to this node's
//   dead-letter stream bloomcrawl:NAME:dead-letter:I with the reason, and counted (dead_letters()), so
//   it cannot fail the node at every resume.
// - Rounds (docs/cluster.md, "Rounds"): the crawl's first run is round 0, each revisit round the
//   next. The constructor joins the cluster's current round; with RoundStart::kNextWhenOver (a
//   resume that revisits) it starts the next one when the current one is over. enter_round() does
//   the latter later in the run (recrawl.continuous).
// - finished() is the round's end test: it publishes this node as idle in its round (only if no
//   entry was acknowledged since the caller's own idleness was seen) and, in one atomic script,
//   says the round is over when every node is idle in it and every inbox is empty, then records
//   that for all (the done key); RoundEnd::kLater when another node has started a later round.
// - publish() writes this node's counters to its node hash (stamped with Redis's clock) and renews its
//   liveness key, which expires `alive_for` later so a dead node shows as stale; it returns true once
//   `bloomcrawl stop --cluster` has asked the crawl to stop after this node started.
// - store_report() puts this node's final report in Redis; gather_reports() returns the merged
//   cluster report, waiting (bounded) for the reports of the nodes still alive (docs/cluster.md, "The cluster report").
// - send() is thread-safe; receive()/acknowledge() belong to one thread and finished(), publish()
//   and the reports to one other: each of the three uses its own connection. Errors throw
//   RedisError.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "crawler/cluster/cluster_status.h"
#include "crawler/cluster/host_partition.h"
#include "crawler/cluster/redis_client.h"

namespace bloomcrawl {

struct ClusterSettings {
  RedisEndpoint redis;  // empty host: no cluster
  std::string name;
  uint32_t nodes = 1;
  uint32_t node = 0;
  // --grow (docs/cluster.md, "Adding nodes"): `nodes` was just raised. A node resumed from a crawl of
  // fewer nodes hands over what it recorded of the hosts it no longer owns, and every node started
  // with --grow waits until all the old nodes have done so before it crawls.
  bool grow = false;
  bool enabled() const { return !redis.host.empty(); }
};

struct RoutedUrl {
  std::string url;  // canonical
  std::string host;
  int kind = 0;  // the crawler's LinkKind
  bool sitemap = false;
  bool operator==(const RoutedUrl&) const = default;
};

// URLs sharing their admission's depth, redirect hops and parent, as the crawler admits them.
struct RoutedBatch {
  uint32_t depth = 0;
  uint32_t hops = 0;
  std::string parent;
  std::vector<RoutedUrl> urls;
  // URLs the sender recorded (fetched or refused) before the cluster grew: the owner's seen filter
  // takes them, its frontier does not.
  bool seen_only = false;
  bool operator==(const RoutedBatch&) const = default;
};

struct InboxEntry {
  std::string id;
  std::vector<RoutedBatch> batches;
};

// How a starting node takes part in the cluster's rounds: it joins the current round, or starts
// the next one when the current one is over.
enum class RoundStart { kJoin, kNextWhenOver };
// The end test's answer: the node's round goes on, is over, or is over and a later one runs.
enum class RoundEnd { kRunning, kOver, kLater };

class ClusterLink {
 public:
  // Connects, creates this node's consumer group if missing, and marks the node busy in its round.
  explicit ClusterLink(ClusterSettings settings, RoundStart start = RoundStart::kJoin);

  const ClusterSettings& settings() const { return settings_; }
  uint32_t owner(std::string_view host) const { return partition_.owner(host); }

  void send(uint32_t node, const std::vector<RoutedBatch>& batches);
  std::vector<InboxEntry> receive(std::chrono::milliseconds wait);
  void acknowledge(const std::vector<InboxEntry>& entries);
  // `locally_idle`: this node has no work (frontier empty, nothing pending).
  RoundEnd finished(const std::function<bool()>& locally_idle);
  // Marks the node busy in the cluster's current round, or in the next one, which it starts, when
  // the current one is over. Returns the node's round.
  int64_t enter_round();
  int64_t round() const { return round_; }

  bool publish(const NodeCounters& counters, std::chrono::milliseconds alive_for);
  // store_report(): this node's final report, stamped with Redis's clock. gather_reports(): the
  // merged report of this run's stored reports, waiting up to `wait` for those of nodes still alive.
  void store_report(const nlohmann::json& report);
  // Growing the cluster: this node has handed over what it recorded of the hosts it no longer owns;
  // wait_for_handovers() returns once every node of the crawl before it grew has (it logs what it
  // waits for; the crawl cannot go on without them).
  void handed_over();
  void wait_for_handovers();
  nlohmann::json gather_reports(std::chrono::milliseconds wait);

  // Inbox entries (XADDs) sent and acknowledged, and the URLs sent in them.
  uint64_t batches_sent() const { return batches_sent_.load(); }
  uint64_t urls_sent() const { return urls_sent_.load(); }
  uint64_t batches_received() const { return batches_received_.load(); }
  // Malformed inbox entries this run moved to bloomcrawl:NAME:dead-letter:I (receive()).
  uint64_t dead_letters() const { return dead_letters_.load(); }

 private:
  std::string inbox(uint32_t node) const;
  std::string node_key(uint32_t node) const;
  std::string alive_key(uint32_t node) const;
  std::string dead_letter_key() const;
  std::string handover_key() const;
  int64_t enter_round(RoundStart start);

  ClusterSettings settings_;
  HostPartition partition_;
  std::mutex send_mu_;
  RedisClient send_client_;         // under send_mu_
  RedisClient inbox_client_;        // the receiving thread's
  RedisClient control_client_;      // finished()'s
  bool history_done_ = false;       // receiving thread: pending entries re-read after the start
  uint64_t inbox_connections_ = 1;  // receiving thread: inbox_client_.connections() at the last read
  // Entries this node has acknowledged in all its runs (node:I's `received`, as the script left it).
  std::atomic<int64_t> acknowledged_{0};
  bool published_idle_ = false;  // finished()'s thread
  int64_t round_ = 0;            // finished()'s thread: the round this node takes part in
  int64_t stop_requests_ = 0;    // the stop key's value at the start: a higher one asks this node to stop
  int64_t started_ms_ = 0;       // Redis's clock at the start: older reports are from earlier runs
  std::atomic<uint64_t> batches_sent_{0};
  std::atomic<uint64_t> urls_sent_{0};
  std::atomic<uint64_t> batches_received_{0};
  std::atomic<uint64_t> dead_letters_{0};
};

// The inbox entry's text (docs/cluster.md) and back: one batch (an object, as the first version
// wrote every entry) or several (an array of them). Decoding throws RedisError on a malformed one.
std::string encode_batch(const RoutedBatch& batch);
std::string encode_batches(const std::vector<RoutedBatch>& batches);
std::vector<RoutedBatch> decode_batches(std::string_view text);

}  // namespace bloomcrawl
