#include "frontier/frontier_state.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace bloomcrawl {
namespace {
// URLs are front-coded against at most this many leading bytes of the host's first URL: enough
// for scheme, host, port and a common path, without keeping a long first URL alive.
constexpr size_t kReferencePrefixBytes = 64;
}  // namespace

const char* admit_result_name(AdmitResult result) {
  switch (result) {
    case AdmitResult::kQueued: return "queued";
    case AdmitResult::kTooDeep: return "too_deep";
    case AdmitResult::kHostQueueFull: return "host_queue_full";
  }
  return "unknown";
}

FrontierState::FrontierState(FrontierOptions options) : options_(std::move(options)) {
  if (options_.default_concurrency == 0) options_.default_concurrency = 1;
  if (!options_.store_directory.empty()) {
    // A new frontier starts empty: whatever an earlier run left in its live store is scratch.
    std::filesystem::remove_all(options_.store_directory);
    disk_ = open_disk_queues(options_);
  }
}

FrontierState::FrontierState(FrontierOptions options, std::unique_ptr<DiskQueues> disk)
    : options_(std::move(options)), disk_(std::move(disk)) {
  if (options_.default_concurrency == 0) options_.default_concurrency = 1;
}

std::unique_ptr<DiskQueues> FrontierState::open_disk_queues(const FrontierOptions& options, uint64_t next_seq,
                                                            std::vector<DiskQueues::SeqRange> stale) {
  // Half the memory limit for the store's memtables and block cache, a quarter for the heads;
  // the rest is slack for what the heads' accounting does not see (held set, allocator).
  const uint64_t limit = std::max<uint64_t>(options.memory_limit_bytes, 1);
  return std::make_unique<DiskQueues>(std::make_unique<UrlStore>(options.store_directory, limit / 2), limit / 4,
                                      next_seq, std::move(stale));
}

uint64_t FrontierState::queue_size(uint32_t host_id) const {
  return disk_ ? disk_->size(host_id) : hosts_[host_id].queue.size();
}

bool FrontierState::queue_empty(uint32_t host_id) const {
  return disk_ ? disk_->empty(host_id) : hosts_[host_id].queue.empty();
}

uint32_t FrontierState::find_host(std::string_view host) const {
  return host_ids_.find(host, [this](uint32_t id) { return hosts_[id].key; });
}

uint32_t FrontierState::new_group(bool named) {
  uint32_t id;
  if (!free_groups_.empty()) {
    id = free_groups_.back();
    free_groups_.pop_back();
    groups_[id] = Group{};
  } else {
    id = static_cast<uint32_t>(groups_.size());
    groups_.emplace_back();
  }
  groups_[id].named = named;
  return id;
}

uint32_t FrontierState::find_or_create_host(std::string_view host, bool* created) {
  if (const uint32_t id = find_host(host); id != kNone) {
    if (created != nullptr) *created = false;
    return id;
  }
  if (hosts_.size() >= kNone - 1) throw std::length_error("Frontier: too many hosts (2^32 - 2)");
  const auto id = static_cast<uint32_t>(hosts_.size());
  Host& fresh = hosts_.emplace_back();
  fresh.key = strings_->store(host);
  fresh.group = new_group(/*named=*/false);
  fresh.held = options_.hold_new_hosts;
  held_hosts_ += fresh.held ? 1 : 0;
  groups_[fresh.group].members = 1;
  host_ids_.insert(fresh.key, id);
  if (disk_) disk_->add_host();
  if (created != nullptr) *created = true;
  if (options_.group_of) {
    if (const std::string group = options_.group_of(host); !group.empty()) join_group(id, group);
  }
  return id;
}

std::chrono::milliseconds FrontierState::delay_of(const Host& host) const {
  return host.delay_ms == kDefaultDelay ? options_.default_delay : std::chrono::milliseconds(host.delay_ms);
}

uint32_t FrontierState::concurrency_of(const Host& host) const {
  return host.concurrency == 0 ? options_.default_concurrency : host.concurrency;
}

uint32_t FrontierState::slots_of(const Group& group, const Host& next) const {
  // A Crawl-delay asks for one request per delay: running several at once would multiply the
  // rate the site asked for, so a group with such a member is served one request at a time.
  return group.crawl_delay_members > 0 ? 1 : concurrency_of(next);
}

void FrontierState::set_own_delay(uint32_t host_id, uint32_t delay_ms) {
  Host& host = hosts_[host_id];
  if (host.delay_ms == kDefaultDelay) ++groups_[host.group].crawl_delay_members;
  host.delay_ms = delay_ms;
  reschedule(host.group);
}

AdmitResult FrontierState::refuse(AdmitResult reason) {
  ++admissions_[static_cast<size_t>(reason)];
  return reason;
}

bool FrontierState::page_limit_reached() const { return options_.max_pages != 0 && dispatched_ >= options_.max_pages; }

bool FrontierState::at_host_page_limit(const Host& host) const {
  return options_.max_pages_per_host != 0 && host.dispatched >= options_.max_pages_per_host;
}

// True when every host with queued URLs has reached max_pages_per_host: none can be dispatched.
// O(hosts) at worst, and only asked when nothing is in flight (empty_and_idle()).
bool FrontierState::only_hosts_at_page_limit_queued() const {
  if (options_.max_pages_per_host == 0) return false;
  for (uint32_t id = 0; id < hosts_.size(); ++id) {
    if (!at_host_page_limit(hosts_[id]) && !queue_empty(id)) return false;
  }
  return true;
}

AdmitResult FrontierState::push(std::string_view host, std::string_view url, uint32_t depth, bool* new_host,
                                PushLimits limits) {
  if (new_host != nullptr) *new_host = false;
  if (limits != PushLimits::kNone) {
    if (AdmitResult r = check_limits(host, depth, limits == PushLimits::kAll); r != AdmitResult::kQueued)
      return refuse(r);
  }
  bool created = false;
  const uint32_t id = find_or_create_host(host, &created);
  if (new_host != nullptr) *new_host = created;
  try {
    enqueue(id, url, depth);
  } catch (...) {
    // The caller never learns that this push created the host (its cue to release it later,
    // FrontierOptions::hold_new_hosts), so a held host would wait for good: released instead.
    if (created && hosts_[id].held) {
      hosts_[id].held = false;
      --held_hosts_;
    }
    throw;
  }
  ++admissions_[static_cast<size_t>(AdmitResult::kQueued)];
  return AdmitResult::kQueued;
}

AdmitResult FrontierState::check_limits(std::string_view host, uint32_t depth, bool queue_limit) const {
  if (depth > options_.max_depth) return AdmitResult::kTooDeep;
  // The page limits refuse nothing: URLs past them stay queued, undispatched, so that a resume
  // with a higher limit fetches them (config/README.md, scope.max_pages).
  if (const uint32_t known = find_host(host); known != kNone) {
    if (queue_limit && options_.max_queued_per_host != 0 && queue_size(known) >= options_.max_queued_per_host) {
      return AdmitResult::kHostQueueFull;
    }
  }
  return AdmitResult::kQueued;
}

void FrontierState::enqueue(uint32_t host_id, std::string_view url, uint32_t depth) {
  Host& host = hosts_[host_id];
  if (disk_) {
    disk_->push(host_id, url, depth);
  } else {
    if (!host.queue.has_reference_prefix()) {
      host.queue.set_reference_prefix(strings_->store(url.substr(0, kReferencePrefixBytes)));
    }
    host.queue.push_back(url, depth);
  }
  ++queued_;
  queued_bytes_ += url.size();
  refresh(host_id);
}

void FrontierState::link(uint32_t host_id) {
  Host& host = hosts_[host_id];
  Group& group = groups_[host.group];
  if (group.ring_head == kNone) {
    host.ring_next = host.ring_prev = host_id;
    group.ring_head = host_id;
  } else {  // just behind the head: the last to be served in this round
    const uint32_t tail = hosts_[group.ring_head].ring_prev;
    host.ring_next = group.ring_head;
    host.ring_prev = tail;
    hosts_[tail].ring_next = host_id;
    hosts_[group.ring_head].ring_prev = host_id;
  }
  ++active_hosts_;
}

void FrontierState::unlink(uint32_t host_id) {
  Host& host = hosts_[host_id];
  Group& group = groups_[host.group];
  if (host.ring_next == host_id) {
    group.ring_head = kNone;
  } else {
    hosts_[host.ring_prev].ring_next = host.ring_next;
    hosts_[host.ring_next].ring_prev = host.ring_prev;
    if (group.ring_head == host_id) group.ring_head = host.ring_next;
  }
  host.ring_next = host.ring_prev = kNone;
  --active_hosts_;
}

void FrontierState::refresh(uint32_t host_id) {
  Host& host = hosts_[host_id];
  const bool dispatchable = !host.held && !queue_empty(host_id) && !at_host_page_limit(host);
  const bool linked = host.ring_next != kNone;
  if (dispatchable && !linked) link(host_id);
  if (!dispatchable && linked) unlink(host_id);
  reschedule(host.group);
}

namespace {

void place_if(ReadyQueue& queue, uint32_t id, bool has_slot, Clock::time_point ready_at) {
  if (!has_slot) {
    queue.remove(id);
  } else if (!queue.contains(id) || queue.time_of(id) != ready_at) {
    queue.place(id, ready_at);
  }
}

}  // namespace

void FrontierState::reschedule(uint32_t group_id) {
  const Group& group = groups_[group_id];
  const Clock::time_point ready_at = group.clock.ready_at();
  place_if(ready_, group_id,
           group.ring_head != kNone && group.clock.in_flight < slots_of(group, hosts_[group.ring_head]), ready_at);
  if (prerequisites_.empty()) return;  // the common case costs no lookup
  const auto waiting = prerequisites_.find(group_id);
  place_if(
      prerequisites_ready_, group_id,
      waiting != prerequisites_.end() && group.clock.in_flight < slots_of(group, hosts_[waiting->second.front().host]),
      ready_at);
}

std::optional<Lease> FrontierState::pop_ready(Clock::time_point now) {
  while (!page_limit_reached() && !ready_.empty() && ready_.top_time() <= now) {
    const uint32_t group_id = ready_.top_id();
    Group& group = groups_[group_id];
    const uint32_t host_id = group.ring_head;
    Host& host = hosts_[host_id];
    Lease lease;
    uint64_t seq = 0;
    if (disk_) {
      const StoreKey key = disk_->pop(host_id, &lease.entry.url);
      lease.entry.depth = key.depth;
      seq = key.seq;
    } else {
      lease.entry.depth = host.queue.pop_front(&lease.entry.url);
    }
    lease.entry.host = std::string(host.key);
    lease.lease_id = next_lease_id_++;
    --queued_;
    queued_bytes_ -= lease.entry.url.size();
    ++host.dispatched;
    ++dispatched_;
    ++host.in_flight;
    ++group.clock.in_flight;
    lease.surplus = surplus_after_pop(host_id);
    leases_.emplace(lease.lease_id, InFlight{host_id, lease.entry.depth, seq, lease.entry.url});
    // Re-placing the group at `now` puts it behind groups that were already waiting, so ready
    // hosts are served round-robin; the ring rotation does the same among the group's hosts.
    group.clock.next_contact = std::max(group.clock.next_contact, now);
    group.ring_head = host.ring_next;
    ready_.remove(group_id);
    refresh(host_id);
    return lease;
  }
  return std::nullopt;
}

// True when none of the host's queued URLs will wait for the slot just taken: there are none, or
// (no delay between contacts) the free slots take them all at once.
bool FrontierState::surplus_after_pop(uint32_t host_id) const {
  const uint64_t queued = queue_size(host_id);
  if (queued == 0) return true;
  const Host& host = hosts_[host_id];
  const Group& group = groups_[host.group];
  const uint32_t slots = slots_of(group, host);
  return delay_of(host).count() == 0 && group.clock.in_flight < slots && queued <= slots - group.clock.in_flight;
}

FrontierState::InFlight FrontierState::take_lease(const Lease& lease, const char* operation) {
  const auto it = leases_.find(lease.lease_id);
  if (it == leases_.end()) {
    throw std::invalid_argument(std::string("Frontier::") + operation + ": lease " + std::to_string(lease.lease_id) +
                                " for " + lease.entry.url + " is not in flight (already completed or released?)");
  }
  InFlight taken = std::move(it->second);
  leases_.erase(it);
  Host& host = hosts_[taken.host];
  --host.in_flight;
  --groups_[host.group].clock.in_flight;
  return taken;
}

void FrontierState::record_outcome(uint32_t host_id, Clock::time_point now, const HostOutcome& outcome) {
  const Host& host = hosts_[host_id];
  if (apply_outcome(groups_[host.group].clock, outcome, now, delay_of(host), options_)) ++parks_;
  switch (outcome.kind) {
    case HostOutcome::Kind::kOk: ++completed_ok_; break;
    case HostOutcome::Kind::kError: ++completed_error_; break;
    case HostOutcome::Kind::kBackoff: ++completed_backoff_; break;
  }
}

void FrontierState::requeue(const InFlight& returned) {
  Host& host = hosts_[returned.host];
  if (disk_) {
    disk_->requeue(StoreKey{returned.host, returned.depth, returned.seq}, returned.url);
  } else {
    host.queue.push_front(returned.url, returned.depth);
  }
  --host.dispatched;
  --dispatched_;
  ++queued_;
  queued_bytes_ += returned.url.size();
  refresh(returned.host);
}

void FrontierState::complete(const Lease& lease, Clock::time_point now, const HostOutcome& outcome) {
  const InFlight done = take_lease(lease, "complete");
  if (disk_) disk_->forget(StoreKey{done.host, done.depth, done.seq});
  record_outcome(done.host, now, outcome);
  reschedule(hosts_[done.host].group);
}

void FrontierState::retry(const Lease& lease, Clock::time_point now, const HostOutcome& outcome) {
  const InFlight returned = take_lease(lease, "retry");
  record_outcome(returned.host, now, outcome);
  ++retried_;
  requeue(returned);
}

void FrontierState::release(const Lease& lease) { requeue(take_lease(lease, "release")); }

void FrontierState::drop(const Lease& lease) {
  const InFlight dropped = take_lease(lease, "drop");
  if (disk_) disk_->forget(StoreKey{dropped.host, dropped.depth, dropped.seq});
  Host& host = hosts_[dropped.host];
  --host.dispatched;
  --dispatched_;
  ++dropped_;
  refresh(dropped.host);
}

void FrontierState::push_prerequisite(std::string_view host, uint64_t token) {
  const uint32_t id = find_or_create_host(host, nullptr);
  const uint32_t group = hosts_[id].group;
  prerequisites_[group].push_back({id, token});
  reschedule(group);
}

std::optional<PrerequisiteLease> FrontierState::pop_prerequisite(Clock::time_point now) {
  if (prerequisites_ready_.empty() || prerequisites_ready_.top_time() > now) return std::nullopt;
  const uint32_t group_id = prerequisites_ready_.top_id();
  const auto waiting = prerequisites_.find(group_id);
  const Prerequisite next = waiting->second.front();
  waiting->second.pop_front();
  if (waiting->second.empty()) prerequisites_.erase(waiting);
  Host& host = hosts_[next.host];
  Group& group = groups_[group_id];
  ++host.prerequisites_in_flight;
  ++group.clock.in_flight;
  // As pop_ready(): re-placed behind the groups already waiting.
  group.clock.next_contact = std::max(group.clock.next_contact, now);
  prerequisites_ready_.remove(group_id);
  reschedule(group_id);
  const uint64_t lease_id = next_lease_id_++;
  prerequisite_leases_.emplace(lease_id, next.host);
  return PrerequisiteLease{std::string(host.key), next.token, lease_id};
}

std::optional<Clock::time_point> FrontierState::next_prerequisite_time() const {
  return prerequisites_ready_.earliest();
}

uint32_t FrontierState::take_prerequisite(const PrerequisiteLease& lease, const char* operation) {
  const auto it = prerequisite_leases_.find(lease.lease_id);
  if (it == prerequisite_leases_.end()) {
    throw std::invalid_argument(std::string("Frontier::") + operation + ": prerequisite lease " +
                                std::to_string(lease.lease_id) + " of " + lease.host + " is not in flight");
  }
  const uint32_t host_id = it->second;
  prerequisite_leases_.erase(it);
  Host& host = hosts_[host_id];
  --host.prerequisites_in_flight;
  --groups_[host.group].clock.in_flight;
  return host_id;
}

void FrontierState::complete_prerequisite(const PrerequisiteLease& lease, Clock::time_point now) {
  const uint32_t host_id = take_prerequisite(lease, "complete_prerequisite");
  const Host& host = hosts_[host_id];
  PolitenessClock& clock = groups_[host.group].clock;
  clock.next_contact = std::max(clock.next_contact, now + delay_of(host));
  reschedule(host.group);
}

void FrontierState::release_prerequisite(const PrerequisiteLease& lease) {
  reschedule(hosts_[take_prerequisite(lease, "release_prerequisite")].group);
}

void FrontierState::move_prerequisites(uint32_t host_id, uint32_t from, uint32_t to) {
  const auto waiting = prerequisites_.find(from);
  if (waiting == prerequisites_.end()) return;
  std::deque<Prerequisite>& source = waiting->second;
  const auto moved =
      std::stable_partition(source.begin(), source.end(), [&](const Prerequisite& p) { return p.host != host_id; });
  if (moved == source.end()) return;
  std::deque<Prerequisite>& target = prerequisites_[to];  // may rehash: `waiting` is not used again
  target.insert(target.end(), moved, source.end());
  source.erase(moved, source.end());
  if (source.empty()) {
    prerequisites_.erase(from);
    prerequisites_ready_.remove(from);
  }
}

std::optional<Clock::time_point> FrontierState::next_ready_time() const {
  if (page_limit_reached()) return std::nullopt;
  return ready_.earliest();
}

void FrontierState::set_host_delay(std::string_view host, std::chrono::milliseconds delay) {
  const auto clamped = std::clamp<std::chrono::milliseconds::rep>(delay.count(), 0, kDefaultDelay - 1);
  set_own_delay(find_or_create_host(host, nullptr), static_cast<uint32_t>(clamped));
}

void FrontierState::set_host_concurrency(std::string_view host, uint32_t concurrency) {
  const uint32_t id = find_or_create_host(host, nullptr);
  hosts_[id].concurrency = std::max<uint32_t>(concurrency, 1);
  reschedule(hosts_[id].group);
}

void FrontierState::hold_host(std::string_view host) {
  const uint32_t id = find_or_create_host(host, nullptr);
  if (!hosts_[id].held) {
    hosts_[id].held = true;
    ++held_hosts_;
  }
  refresh(id);
}

void FrontierState::release_host(std::string_view host, std::optional<Clock::time_point> contacted_at) {
  const uint32_t id = find_host(host);
  if (id == kNone || !hosts_[id].held) return;
  if (contacted_at) {
    PolitenessClock& clock = groups_[hosts_[id].group].clock;
    clock.next_contact = std::max(clock.next_contact, *contacted_at + delay_of(hosts_[id]));
  }
  hosts_[id].held = false;
  --held_hosts_;
  refresh(id);
}

void FrontierState::set_politeness_group(std::string_view host, std::string_view group) {
  if (group.empty())
    throw std::invalid_argument("Frontier::set_politeness_group: empty group name for host " + std::string(host));
  join_group(find_or_create_host(host, nullptr), group);
}

void FrontierState::join_group(uint32_t host_id, std::string_view group) {
  uint32_t target;
  if (const auto it = group_ids_.find(group); it != group_ids_.end()) {
    target = it->second;
  } else {
    target = new_group(/*named=*/true);
    group_ids_.emplace(strings_->store(group), target);
  }
  Host& moving = hosts_[host_id];
  const uint32_t source = moving.group;
  if (source == target) return;
  const bool linked = moving.ring_next != kNone;
  if (linked) unlink(host_id);
  Group& from = groups_[source];
  Group& to = groups_[target];
  const uint32_t own_delay = moving.delay_ms != kDefaultDelay ? 1 : 0;
  const uint32_t in_flight = moving.in_flight + moving.prerequisites_in_flight;
  from.members--;
  from.crawl_delay_members -= own_delay;
  from.clock.in_flight -= in_flight;
  to.members++;
  to.crawl_delay_members += own_delay;
  to.clock.in_flight += in_flight;
  // The joined server inherits the stricter clock: whatever the host was waiting for still holds.
  to.clock.next_contact = std::max(to.clock.next_contact, from.clock.next_contact);
  to.clock.blocked_until = std::max(to.clock.blocked_until, from.clock.blocked_until);
  moving.group = target;
  move_prerequisites(host_id, source, target);
  if (!from.named && from.members == 0) {
    ready_.remove(source);
    free_groups_.push_back(source);
  } else {
    reschedule(source);
  }
  refresh(host_id);
}

bool FrontierState::is_known_host(std::string_view host) const { return find_host(host) != kNone; }

std::vector<std::string> FrontierState::held_hosts() const {
  std::vector<std::string> held;
  held.reserve(held_hosts_);
  for (const Host& host : hosts_) {
    if (host.held) held.emplace_back(host.key);
  }
  return held;
}

void FrontierState::for_each_queued(
    const std::function<void(std::string_view, std::string_view, uint32_t)>& visit) const {
  if (disk_) {
    disk_->for_each_queued(
        [&](uint32_t host, std::string_view url, uint32_t depth) { visit(hosts_[host].key, url, depth); });
    return;
  }
  for (const Host& host : hosts_) {
    host.queue.for_each([&](std::string_view url, uint32_t depth) { visit(host.key, url, depth); });
  }
}

bool FrontierState::empty_and_idle() const {
  return leases_.empty() && prerequisite_leases_.empty() && prerequisites_.empty() &&
         (queued_ == 0 || page_limit_reached() || only_hosts_at_page_limit_queued());
}

FrontierStats FrontierState::stats(bool compute_memory) const {
  FrontierStats stats;
  stats.queued = queued_;
  stats.queued_url_bytes = queued_bytes_;
  stats.hosts = hosts_.size();
  stats.active_hosts = active_hosts_;
  stats.held_hosts = held_hosts_;
  stats.ready_queue_size = ready_.size();
  stats.in_flight = leases_.size();
  stats.dispatched = dispatched_;
  stats.completed_ok = completed_ok_;
  stats.completed_error = completed_error_;
  stats.completed_backoff = completed_backoff_;
  stats.parks = parks_;
  stats.retried = retried_;
  stats.admissions = admissions_;
  stats.dropped = dropped_;
  if (!compute_memory) return stats;
  // Container node sizes are estimated (libstdc++ hash nodes: next pointer, value, cached hash).
  constexpr size_t kHashNodeBytes = sizeof(void*) + sizeof(std::string_view) + 2 * sizeof(size_t);
  size_t bytes = strings_->allocated_bytes() + ready_.allocated_bytes() + host_ids_.allocated_bytes() +
                 hosts_.size() * sizeof(Host) + groups_.size() * sizeof(Group) + group_ids_.size() * kHashNodeBytes +
                 group_ids_.bucket_count() * sizeof(void*);
  for (const Host& host : hosts_) bytes += host.queue.allocated_bytes();
  if (disk_) bytes += disk_->memory_bytes();
  stats.bytes_used = bytes;
  return stats;
}

}  // namespace bloomcrawl
