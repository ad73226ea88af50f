#include "frontier/frontier.h"

#include <stdexcept>
#include <type_traits>
#include <utility>

#include "base/durable_file.h"
#include "base/file_system.h"
#include "frontier/frontier_snapshot.h"
#include "frontier/frontier_state.h"
#include "frontier/snapshot_reader.h"

namespace bloomcrawl {

struct Frontier::Shared {
  explicit Shared(FrontierState initial) : state(std::move(initial)) {}

  // Runs `change` on the state under the mutex and returns what it returns; then wakes waiters only
  // when the earliest ready time moved earlier (or appeared), the only change that can shorten
  // their wait, or, when the change `may_finish` (a request given back), when nothing is left, so
  // that they re-check empty_and_idle().
  template <typename Change>
  auto update(Change&& change, bool may_finish = false) {
    std::lock_guard lock(mutex);
    const std::optional<Clock::time_point> before = state.next_ready_time();
    if constexpr (std::is_void_v<decltype(change(state))>) {
      change(state);
      wake(before, may_finish);
    } else {
      auto result = change(state);
      wake(before, may_finish);
      return result;
    }
  }

  void wake(std::optional<Clock::time_point> before, bool may_finish) {
    const std::optional<Clock::time_point> after = state.next_ready_time();
    if ((after && (!before || *after < *before)) || (may_finish && state.empty_and_idle())) {
      ready_changed.notify_all();
    }
  }

  mutable std::mutex mutex;
  std::condition_variable ready_changed;
  FrontierState state;
  bool closed = false;
};

Frontier::Frontier(FrontierOptions options) : shared_(std::make_unique<Shared>(FrontierState(std::move(options)))) {}
Frontier::Frontier(FrontierState state) : shared_(std::make_unique<Shared>(std::move(state))) {}
Frontier::Frontier(Frontier&&) noexcept = default;
Frontier& Frontier::operator=(Frontier&&) noexcept = default;
Frontier::~Frontier() = default;

AdmitResult Frontier::push(std::string_view host, std::string_view url, uint32_t depth, bool* new_host) {
  return push_url(host, url, depth, new_host, PushLimits::kAll);
}

AdmitResult Frontier::requeue(std::string_view host, std::string_view url, uint32_t depth) {
  return push_url(host, url, depth, nullptr, PushLimits::kButQueue);
}

void Frontier::keep(std::string_view host, std::string_view url, uint32_t depth) {
  push_url(host, url, depth, nullptr, PushLimits::kNone);
}

AdmitResult Frontier::push_url(std::string_view host, std::string_view url, uint32_t depth, bool* new_host,
                               PushLimits limits) {
  return shared_->update([&](FrontierState& state) { return state.push(host, url, depth, new_host, limits); });
}

bool Frontier::is_known_host(std::string_view host) const {
  std::lock_guard lock(shared_->mutex);
  return shared_->state.is_known_host(host);
}

std::optional<Lease> Frontier::pop_ready(Clock::time_point now) {
  std::lock_guard lock(shared_->mutex);
  if (shared_->closed) return std::nullopt;
  return shared_->state.pop_ready(now);
}

void Frontier::complete(const Lease& lease, Clock::time_point now, HostOutcome outcome) {
  shared_->update([&](FrontierState& state) { state.complete(lease, now, outcome); }, true);
}

void Frontier::retry(const Lease& lease, Clock::time_point now, HostOutcome outcome) {
  shared_->update([&](FrontierState& state) { state.retry(lease, now, outcome); });
}

void Frontier::release(const Lease& lease) {
  shared_->update([&](FrontierState& state) { state.release(lease); });
}

void Frontier::drop(const Lease& lease) {
  shared_->update([&](FrontierState& state) { state.drop(lease); }, true);
}

std::optional<Clock::time_point> Frontier::next_ready_time() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->state.next_ready_time();
}

bool Frontier::wait_ready(Clock::time_point deadline) {
  std::unique_lock lock(shared_->mutex);
  for (bool woken = false; !shared_->closed; woken = true) {
    const Clock::time_point now = Clock::now();
    const std::optional<Clock::time_point> ready = shared_->state.next_ready_time();
    if (ready && *ready <= now) return true;
    if (now >= deadline) return false;
    // Idle at entry means "wait for pushes"; becoming idle while waiting means the crawl may be
    // over, which the caller decides.
    if (woken && shared_->state.empty_and_idle()) return false;
    shared_->ready_changed.wait_until(lock, ready ? std::min(*ready, deadline) : deadline);
  }
  return false;
}

void Frontier::set_host_delay(std::string_view host, std::chrono::milliseconds delay) {
  std::lock_guard lock(shared_->mutex);
  shared_->state.set_host_delay(host, delay);
}

void Frontier::set_host_concurrency(std::string_view host, uint32_t concurrency) {
  shared_->update([&](FrontierState& state) { state.set_host_concurrency(host, concurrency); });
}

void Frontier::hold_host(std::string_view host) {
  std::lock_guard lock(shared_->mutex);
  shared_->state.hold_host(host);
}

void Frontier::release_host(std::string_view host, std::optional<Clock::time_point> contacted_at) {
  shared_->update([&](FrontierState& state) { state.release_host(host, contacted_at); });
}

std::vector<std::string> Frontier::held_hosts() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->state.held_hosts();
}

void Frontier::for_each_queued(const std::function<void(std::string_view, std::string_view, uint32_t)>& visit) const {
  std::lock_guard lock(shared_->mutex);
  shared_->state.for_each_queued(visit);
}

void Frontier::set_politeness_group(std::string_view host, std::string_view group) {
  shared_->update([&](FrontierState& state) { state.set_politeness_group(host, group); });
}

void Frontier::push_prerequisite(std::string_view host, uint64_t token) {
  std::lock_guard lock(shared_->mutex);
  shared_->state.push_prerequisite(host, token);
}

std::optional<PrerequisiteLease> Frontier::pop_prerequisite(Clock::time_point now) {
  std::lock_guard lock(shared_->mutex);
  if (shared_->closed) return std::nullopt;
  return shared_->state.pop_prerequisite(now);
}

std::optional<Clock::time_point> Frontier::next_prerequisite_time() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->state.next_prerequisite_time();
}

void Frontier::complete_prerequisite(const PrerequisiteLease& lease, Clock::time_point now) {
  shared_->update([&](FrontierState& state) { state.complete_prerequisite(lease, now); }, true);
}

void Frontier::release_prerequisite(const PrerequisiteLease& lease) {
  shared_->update([&](FrontierState& state) { state.release_prerequisite(lease); }, true);
}

void Frontier::close() {
  {
    std::lock_guard lock(shared_->mutex);
    shared_->closed = true;
  }
  shared_->ready_changed.notify_all();
}

std::string Frontier::failure() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->state.store_failure();
}

bool Frontier::closed() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->closed;
}

FrontierStats Frontier::stats(bool compute_memory) const {
  std::lock_guard lock(shared_->mutex);
  return shared_->state.stats(compute_memory);
}

bool Frontier::empty_and_idle() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->state.empty_and_idle();
}

FrontierImage Frontier::capture() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->state.capture();
}

std::string Frontier::snapshot() const {
  // Only the capture holds the lock; encoding and the checksum pass over every byte need not.
  std::string bytes = capture().encode_body();
  seal_frontier_snapshot(bytes);
  return bytes;
}

FrontierCheckpointStats Frontier::checkpoint(const std::filesystem::path& directory) {
  DiskCheckpointCut cut = cut_checkpoint();
  return write_checkpoint(cut, directory);
}

DiskCheckpointCut Frontier::cut_checkpoint() {
  const Clock::time_point start = Clock::now();
  std::lock_guard lock(shared_->mutex);
  if (!shared_->state.on_disk()) throw std::logic_error("Frontier::checkpoint: not a disk frontier");
  DiskCheckpointCut cut = shared_->state.begin_disk_checkpoint();
  cut.pause = Clock::now() - start;
  return cut;
}

FrontierCheckpointStats Frontier::write_checkpoint(DiskCheckpointCut& cut, const std::filesystem::path& directory) {
  const Clock::time_point start = Clock::now();
  FrontierCheckpointStats stats;
  UrlStore* store = nullptr;
  {
    std::lock_guard lock(shared_->mutex);
    store = &shared_->state.store();
  }
  auto finish = [&] {
    const Clock::time_point locked = Clock::now();
    std::lock_guard lock(shared_->mutex);
    shared_->state.finish_disk_checkpoint(cut);
    stats.pause = cut.pause + (Clock::now() - locked);
  };
  try {
    std::filesystem::create_directories(directory);
    store->checkpoint_to(directory / kFrontierStoreDirectory);
  } catch (...) {
    finish();
    throw;
  }
  finish();
  const std::string state = encode_frontier_state(cut);
  write_file_durably(directory / kFrontierStateFile, state.data(), state.size());
  sync_directory(directory);
  stats.state_bytes = state.size();
  stats.queued = cut.queued;
  stats.total = cut.pause + (Clock::now() - start);
  return stats;
}

Frontier Frontier::open_checkpoint(const std::filesystem::path& directory, FrontierOptions options) {
  return Frontier(FrontierState::open_disk_checkpoint(directory, std::move(options)));
}

void Frontier::check_checkpoint(const std::filesystem::path& directory) {
  const std::filesystem::path state_path = directory / kFrontierStateFile;
  const std::string bytes = read_whole_file(state_path);
  // Its constructor checks the length, magic, version and CRC-32; the body is read by open.
  [[maybe_unused]] const SnapshotReader framed(bytes, kFrontierStateMagic,
                                               "frontier state file " + state_path.string());
  const std::filesystem::path current = directory / kFrontierStoreDirectory / "CURRENT";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(current, ec)) throw std::runtime_error(current.string() + ": missing");
  // Every block's checksum, now rather than at the first scan that reads a bad block: a resume
  // then falls back to an older generation instead of failing the same way every time.
  UrlStore::verify(directory / kFrontierStoreDirectory);
}

Frontier Frontier::restore(std::string_view bytes, FrontierOptions options) {
  return Frontier(FrontierState::restore(bytes, std::move(options)));
}

}  // namespace bloomcrawl
