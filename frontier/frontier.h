// Frontier: the URLs waiting to be fetched, grouped by an opaque host key, and the politeness
// clocks that decide when each host may next be contacted (Mercator's design: per-host FIFO
// queues plus a ready-queue of hosts ordered by next-contact time).
//
// Contract:
//  - pop_ready(now) returns a URL of a host that may be contacted at `now`, never one of a host
//    that is held, parked, backing off, inside its delay or at its concurrency cap, and never
//    makes a caller wait on a busy host while another is ready. Per host, URLs come out
//    breadth-first (lower depth first), FIFO within a depth.
//  - Every lease is given back exactly once: complete() (fetched, with its politeness outcome),
//    retry() (outcome applied, URL back at the head of its host queue) or release() (not
//    fetched: back at the head of its host queue, clock untouched).
//  - A prerequisite (push_prerequisite(): a request to a host that is none of its URLs, such as
//    its robots.txt) obeys the same politeness key as the host's URLs and shares its slots.
//  - push() enforces depth, page, per-host page and per-host queue limits; a refusal returns the
//    reason and is counted in stats().
//  - Thread-safe: one internal mutex, held only for the bookkeeping of one call.
// URLs and host keys are opaque bytes: nothing here parses URLs or knows about fetching.
// With FrontierOptions::store_directory set, queued URLs live in a RocksDB store there and RAM
// holds each host's next few (disk mode); checkpoint()/open_checkpoint() replace snapshot().
// Delay semantics, snapshot format and memory layout: docs/frontier.md.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontier/frontier_checkpoint.h"
#include "frontier/frontier_image.h"
#include "frontier/frontier_types.h"

namespace bloomcrawl {

class FrontierState;

class Frontier {
 public:
  explicit Frontier(FrontierOptions options);
  Frontier(Frontier&&) noexcept;
  Frontier& operator=(Frontier&&) noexcept;
  ~Frontier();

  // Queues `url` for `host`. *new_host (if given) is set when this call created the host's state,
  // which is the crawler's cue to fetch robots.txt (see FrontierOptions::hold_new_hosts).
  AdmitResult push(std::string_view host, std::string_view url, uint32_t depth, bool* new_host = nullptr);
  // A URL queued before a restore (a checkpoint's released leases, a journal's admissions) queued
  // again: as push(), but a full host queue does not refuse it, because pops since the checkpoint
  // had made room for it. The depth limit still applies (it may be lower than before).
  AdmitResult requeue(std::string_view host, std::string_view url, uint32_t depth);
  // Queues `url` whatever the limits. For a URL that push() refused after close() and whose
  // refusal could not be recorded: a checkpoint then carries it to a resume, whose requeue()
  // refuses it again and can record it. Never dispatched in this run (the frontier is closed).
  void keep(std::string_view host, std::string_view url, uint32_t depth);
  bool is_known_host(std::string_view host) const;

  // A URL whose host may be contacted at `now`; it counts toward the page limits at once.
  // nullopt when nothing is ready, the page limit is reached or the frontier is closed.
  std::optional<Lease> pop_ready(Clock::time_point now);
  // The fetch of `lease` finished at `now`; starts the host's delay, applies back-off/budget.
  // Throws std::invalid_argument for a lease that is not in flight.
  void complete(const Lease& lease, Clock::time_point now, HostOutcome outcome);
  // The request failed in a way worth retrying (typically 429/503 with back-off): the outcome is
  // applied as by complete(), and the URL goes back to the head of its host queue, to be fetched
  // when the host may be contacted again; it no longer counts as a page. The crawler bounds how
  // often it retries a URL.
  void retry(const Lease& lease, Clock::time_point now, HostOutcome outcome);
  // The lease was not fetched (shutdown, checkpoint): it goes back to the head of its host
  // queue and no longer counts as a page; the host's clock is untouched.
  void release(const Lease& lease);
  // The lease will never be fetched (e.g. robots.txt disallows it): it no longer counts as a
  // page and the host's clock is untouched.
  void drop(const Lease& lease);

  // The earliest time some host may be contacted (possibly in the past); nullopt if none has
  // dispatchable URLs (all empty, held, or at their concurrency cap) or the page limit is reached.
  std::optional<Clock::time_point> next_ready_time() const;
  // Blocks until a host may be ready by the real clock (true), or `deadline` passes, close() is
  // called, or the frontier becomes empty_and_idle() while waiting (false). Woken early by
  // push/complete/release/release_host. Workers should push a page's links before complete().
  bool wait_ready(Clock::time_point deadline);

  // Per-host politeness. A host named here for the first time is created (with an empty queue).
  // set_host_delay gives the host its own delay (robots.txt Crawl-delay), which applies from the
  // next completion; from now on the host's politeness key runs one request at a time whatever
  // the concurrency, so starts there are at least the delay apart (docs/frontier.md).
  void set_host_delay(std::string_view host, std::chrono::milliseconds delay);
  void set_host_concurrency(std::string_view host, uint32_t concurrency);
  // A held host keeps receiving URLs but is not dispatched (e.g. while its robots.txt is fetched).
  void hold_host(std::string_view host);
  // `contacted_at`: the host answered another request then (its robots.txt), so its delay
  // runs from that moment before the first URL is dispatched.
  void release_host(std::string_view host, std::optional<Clock::time_point> contacted_at = std::nullopt);
  // The held hosts, e.g. after restore() with hold_new_hosts: those whose robots.txt must be
  // fetched again before release_host(). O(hosts).
  std::vector<std::string> held_hosts() const;
  // Calls visit(host, url, depth) for every queued URL, held and parked hosts included, under
  // the lock (visit must not call the frontier). O(queued): for the end of a crawl, whose
  // leftover URLs are recorded rather than forgotten. In disk mode one sequential pass over the
  // store, in bounded memory (docs/frontier.md).
  void for_each_queued(const std::function<void(std::string_view, std::string_view, uint32_t)>& visit) const;
  // Hosts in one named group (e.g. resolving to one IP) share one clock, concurrency slots,
  // back-off and error budget. A host moves to the group with whatever is in flight.
  void set_politeness_group(std::string_view host, std::string_view group);

  // Prerequisites: requests to a host that are none of its queued URLs (e.g. its robots.txt),
  // under the same politeness as its URLs. Each waits for the host's politeness key (delay,
  // concurrency cap, back-off, a Crawl-delay's one at a time) and takes one of the key's slots
  // while in flight, so pages and prerequisites together never exceed the key's cap. A held
  // host's prerequisites are served: they are what it is held for. They are not pages (no page
  // limit applies) and snapshots do not keep them. `token` is the caller's, handed back in the
  // lease; a key's prerequisites are served in the order pushed.
  void push_prerequisite(std::string_view host, uint64_t token);
  // A prerequisite whose key may be contacted at `now`; nullopt when none may or the frontier is
  // closed. A caller that wants prerequisites served before pages asks here before pop_ready().
  std::optional<PrerequisiteLease> pop_prerequisite(Clock::time_point now);
  // The earliest time a waiting prerequisite may be served (possibly in the past); nullopt if none
  // waits with a free slot.
  std::optional<Clock::time_point> next_prerequisite_time() const;
  // The prerequisite was answered at `now`: the host's delay runs from then. No outcome is applied
  // (back-off, error budget): the caller judges its answers by its own rules.
  void complete_prerequisite(const PrerequisiteLease& lease, Clock::time_point now);
  // Nothing answered the prerequisite (not sent, or no server reached): its slot is free, the
  // clock untouched. Both throw std::invalid_argument for a lease that is not in flight.
  void release_prerequisite(const PrerequisiteLease& lease);

  // Disk mode: the store's first failure, "DIR: frontier store: PROBLEM", empty while there is
  // none. From then on push() and pop_ready() (when it must read the store) throw it as a
  // CheckpointError and checkpoints fail, while what needs no store write goes on: completions,
  // releases, drops, and for_each_queued() (docs/frontier.md, "When the store fails"). A push()
  // that throws has queued nothing and leaves no host held that it created.
  std::string failure() const;

  // Wakes every wait_ready() and makes pop_ready() and pop_prerequisite() return nullopt from now on.
  void close();
  bool closed() const;

  // compute_memory walks every host to sum queue memory (bytes_used; O(hosts) under the lock):
  // leave it off for frequent progress reports.
  FrontierStats stats(bool compute_memory = true) const;
  // No URL queued (or the page limit reached), no prerequisite waiting and nothing in flight: the
  // crawl is done.
  bool empty_and_idle() const;

  // Checkpoint: queued URLs, in-flight leases as if released, per-host settings and page counts.
  // Politeness clocks (delays in progress, back-off, parks) are not kept: they restart at restore.
  std::string snapshot() const;
  // What snapshot() writes, captured now under the lock in O(hosts + queue chunks) without
  // copying URLs; encode it later, on any thread (FrontierImage::encode_body(), then
  // seal_frontier_snapshot()), while the frontier goes on. For callers that pause others while
  // they capture. The image shares what it reads, so it may outlive the frontier.
  FrontierImage capture() const;
  // Throws std::runtime_error naming the byte offset and what was wrong for corrupted input.
  static Frontier restore(std::string_view bytes, FrontierOptions options);

  // Disk mode (FrontierOptions::store_directory): writes a checkpoint into `directory` (created;
  // it must not exist): the store's SST files hard-linked, only what changed since the previous
  // checkpoint written, and a small state file. Callers are blocked only for a capture of the
  // per-host state (O(hosts)), not while URLs are written. The checkpoint holds what snapshot()
  // would: queued URLs, leases as released, settings and page counts (docs/frontier.md,
  // "Checkpoints of a disk frontier"). Throws std::logic_error in RAM mode, std::runtime_error
  // (naming the path) when a write fails; the frontier is unchanged either way.
  FrontierCheckpointStats checkpoint(const std::filesystem::path& directory);
  // checkpoint() in two halves, for callers that pause others while they cut (as capture()):
  // cut_checkpoint() is the pause; write_checkpoint() copies the store and writes the state
  // file, on any thread, while the frontier goes on. Every cut must be written exactly once
  // (write_checkpoint ends it even when it throws).
  DiskCheckpointCut cut_checkpoint();
  FrontierCheckpointStats write_checkpoint(DiskCheckpointCut& cut, const std::filesystem::path& directory);
  // A disk frontier from such a directory, its live store created in options.store_directory;
  // reads the state file, not the URLs. Throws std::runtime_error naming a missing or corrupted file.
  static Frontier open_checkpoint(const std::filesystem::path& directory, FrontierOptions options);
  // What open_checkpoint() reads, checked without changing anything: the state file's magic and
  // CRC, the store's CURRENT, and the checksum of every block of the store's files (it reads them
  // all: O(store size)). Throws std::runtime_error naming the file.
  static void check_checkpoint(const std::filesystem::path& directory);

 private:
  explicit Frontier(FrontierState state);
  AdmitResult push_url(std::string_view host, std::string_view url, uint32_t depth, bool* new_host, PushLimits limits);
  struct Shared;
  std::unique_ptr<Shared> shared_;
};

}  // namespace bloomcrawl
