// FrontierState: the single-threaded core behind Frontier (frontier/frontier.h), which adds the
// mutex, the condition variable and close(). Hosts live in a vector indexed by a dense id; each
// host belongs to one politeness group (its own, unless set_politeness_group() put it in a named
// one). A group's hosts that have dispatchable URLs form a ring served round-robin, and the group
// sits in the ReadyQueue at the time it may next be contacted while it has a free slot.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frontier/disk_queues.h"
#include "frontier/frontier_checkpoint.h"
#include "frontier/frontier_host_index.h"
#include "frontier/frontier_image.h"
#include "frontier/frontier_snapshot.h"
#include "frontier/frontier_types.h"
#include "frontier/host_queue.h"
#include "frontier/politeness.h"
#include "frontier/ready_queue.h"
#include "frontier/url_arena.h"

namespace bloomcrawl {

class SnapshotReader;

class FrontierState {
 public:
  // With options.store_directory set, queued URLs live in a store there (disk mode).
  explicit FrontierState(FrontierOptions options);

  AdmitResult push(std::string_view host, std::string_view url, uint32_t depth, bool* new_host,
                   PushLimits limits = PushLimits::kAll);
  std::optional<Lease> pop_ready(Clock::time_point now);
  void complete(const Lease& lease, Clock::time_point now, const HostOutcome& outcome);
  void retry(const Lease& lease, Clock::time_point now, const HostOutcome& outcome);
  void release(const Lease& lease);
  void drop(const Lease& lease);
  std::optional<Clock::time_point> next_ready_time() const;

  void push_prerequisite(std::string_view host, uint64_t token);
  std::optional<PrerequisiteLease> pop_prerequisite(Clock::time_point now);
  std::optional<Clock::time_point> next_prerequisite_time() const;
  void complete_prerequisite(const PrerequisiteLease& lease, Clock::time_point now);
  void release_prerequisite(const PrerequisiteLease& lease);

  void set_host_delay(std::string_view host, std::chrono::milliseconds delay);
  void set_host_concurrency(std::string_view host, uint32_t concurrency);
  void hold_host(std::string_view host);
  void release_host(std::string_view host, std::optional<Clock::time_point> contacted_at);
  void set_politeness_group(std::string_view host, std::string_view group);
  bool is_known_host(std::string_view host) const;
  std::vector<std::string> held_hosts() const;
  void for_each_queued(const std::function<void(std::string_view, std::string_view, uint32_t)>& visit) const;

  FrontierStats stats(bool compute_memory) const;
  bool empty_and_idle() const;
  bool page_limit_reached() const;

  // frontier_image.cc: the snapshot's content now, encoded later (FrontierImage::encode_body()).
  FrontierImage capture() const;
  // frontier_snapshot.cc.
  std::string snapshot() const;
  static FrontierState restore(std::string_view bytes, FrontierOptions options);

  // frontier_checkpoint.cc: a disk-mode checkpoint in three steps (docs/frontier.md,
  // "Checkpoints of a disk frontier"); the store copy between them runs without the lock.
  bool on_disk() const { return disk_ != nullptr; }
  DiskCheckpointCut begin_disk_checkpoint();
  UrlStore& store() { return disk_->store(); }
  std::string store_failure() const { return disk_ ? disk_->failure() : std::string(); }
  // Ends the deferral of deletes begun by begin_disk_checkpoint() and completes `cut`.
  void finish_disk_checkpoint(DiskCheckpointCut& cut);
  static FrontierState open_disk_checkpoint(const std::filesystem::path& directory, FrontierOptions options);

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint32_t kDefaultDelay = UINT32_MAX;

  struct Host {
    std::string_view key;  // in strings_
    HostQueue queue;
    uint64_t dispatched = 0;  // pages: leases handed out and not released
    uint32_t group = kNone;
    uint32_t in_flight = 0;
    uint32_t delay_ms = kDefaultDelay;
    uint32_t concurrency = 0;    // 0 = options' default
    uint32_t ring_next = kNone;  // ring of the group's dispatchable hosts; kNone = not in it
    uint32_t ring_prev = kNone;
    bool held = false;
    uint16_t prerequisites_in_flight = 0;  // in the group's in_flight, not in the host's (pages)
  };
  struct Group {
    PolitenessClock clock;
    uint32_t ring_head = kNone;  // the host to dispatch next
    uint32_t members = 0;
    uint32_t crawl_delay_members = 0;  // members with their own delay: the group runs serially
    bool named = false;
  };
  // A prerequisite waiting for its group (push_prerequisite()).
  struct Prerequisite {
    uint32_t host;
    uint64_t token;
  };
  struct InFlight {
    uint32_t host;
    uint32_t depth;
    uint64_t seq;  // disk mode: the URL's store key is (host, depth, seq)
    std::string url;
  };

  FrontierState(FrontierOptions options, std::unique_ptr<DiskQueues> disk);
  static std::unique_ptr<DiskQueues> open_disk_queues(const FrontierOptions& options, uint64_t next_seq = 0,
                                                      std::vector<DiskQueues::SeqRange> stale = {});
  uint64_t queue_size(uint32_t host_id) const;
  bool queue_empty(uint32_t host_id) const;
  // Named groups in creation order (*names) and each group's index in them (0 = a host's own).
  std::vector<uint32_t> group_indices(std::vector<std::string_view>* names) const;
  // Reads one host's settings (docs/frontier.md, host := key group flags delay concurrency pages)
  // and creates it; returns its id.
  static FrontierHostSettings host_settings(const Host& host, const std::vector<uint32_t>& group_index);
  uint32_t restore_host(SnapshotReader& in, const std::vector<std::string_view>& group_names);
  uint32_t find_host(std::string_view host) const;
  uint32_t find_or_create_host(std::string_view host, bool* created);
  uint32_t new_group(bool named);
  // Moves the host, with whatever it has in flight, into the named group (created if new).
  void join_group(uint32_t host_id, std::string_view group);
  void enqueue(uint32_t host_id, std::string_view url, uint32_t depth);
  AdmitResult refuse(AdmitResult reason);
  std::chrono::milliseconds delay_of(const Host& host) const;
  uint32_t concurrency_of(const Host& host) const;
  // Requests the group may have in flight when `next` is dispatched next.
  uint32_t slots_of(const Group& group, const Host& next) const;
  bool surplus_after_pop(uint32_t host_id) const;
  // Sets the host's own delay, counted in its group: it makes the group serial (docs/frontier.md).
  void set_own_delay(uint32_t host_id, uint32_t delay_ms);
  // Moves the host's waiting prerequisites from one group's to another's.
  void move_prerequisites(uint32_t host_id, uint32_t from, uint32_t to);
  uint32_t take_prerequisite(const PrerequisiteLease& lease, const char* operation);
  // Keeps ring membership and the group's ready-queue entry in line with the host's state.
  void refresh(uint32_t host_id);
  // The refusal push() would give (kQueued: none).
  AdmitResult check_limits(std::string_view host, uint32_t depth, bool queue_limit) const;
  // Places the group in (or removes it from) the ready queues of its URLs and its prerequisites.
  void reschedule(uint32_t group_id);
  void link(uint32_t host_id);
  void unlink(uint32_t host_id);
  // scope.max_pages_per_host: a host that has reached it keeps its queue but is not dispatched.
  bool at_host_page_limit(const Host& host) const;
  bool only_hosts_at_page_limit_queued() const;
  InFlight take_lease(const Lease& lease, const char* operation);
  void record_outcome(uint32_t host_id, Clock::time_point now, const HostOutcome& outcome);
  // Puts a lease back at the head of its host queue; it no longer counts as a page.
  void requeue(const InFlight& returned);

  FrontierOptions options_;
  // Shared with FrontierImages, which read host keys and prefixes after the lock is released.
  std::shared_ptr<UrlArena> strings_ = std::make_shared<UrlArena>();
  // Deques, not vectors: no doubling slack and no copying when millions of hosts arrive.
  std::deque<Host> hosts_;
  HostIndex host_ids_;
  std::deque<Group> groups_;
  std::vector<uint32_t> free_groups_;
  std::unordered_map<std::string_view, uint32_t> group_ids_;  // named groups
  ReadyQueue ready_;
  std::unordered_map<uint64_t, InFlight> leases_;
  uint64_t next_lease_id_ = 1;
  // Prerequisites: the waiting ones per group, oldest first (only groups that have some), the
  // groups among those with a free slot by ready time, and the leases in flight (id -> host).
  std::unordered_map<uint32_t, std::deque<Prerequisite>> prerequisites_;
  ReadyQueue prerequisites_ready_;
  std::unordered_map<uint64_t, uint32_t> prerequisite_leases_;

  uint64_t queued_ = 0;
  uint64_t queued_bytes_ = 0;
  uint64_t dispatched_ = 0;
  uint64_t active_hosts_ = 0;
  uint64_t held_hosts_ = 0;
  uint64_t completed_ok_ = 0;
  uint64_t completed_error_ = 0;
  uint64_t completed_backoff_ = 0;
  uint64_t parks_ = 0;
  uint64_t retried_ = 0;
  uint64_t dropped_ = 0;  // leases given up with drop()
  std::array<uint64_t, kAdmitResultCount> admissions_{};
  std::unique_ptr<DiskQueues> disk_;  // disk mode; host queues above stay empty
};

}  // namespace bloomcrawl
