#include "crawler/fetch/fetch_worker.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

#include "crawler/fetch/fetch_tls.h"

namespace bloomcrawl {
namespace {

// Upper bound on one curl_multi_poll wait; new work and stop() interrupt it with a wakeup, and
// libcurl shortens it to its own next timer, so this only bounds a lost-wakeup bug.
constexpr int kPollMs = 1000;

// Idle connections cached per worker, per transfer it runs. With a politeness delay D between a
// host's requests and a transfer time L, a worker running T transfers cycles through about
// T * (D + L) / L hosts; keeping only T connections (libcurl closes the oldest idle one when the
// cache is full) would reopen, and re-handshake, almost every connection. 4 * T covers D = 3 L
// (1 s delays at ~300 ms per page on the web) at a bounded cost: an idle TLS connection holds one
// descriptor and ~50 KB. docs/fetcher.md explains the choice.
constexpr long kCachedConnectionsPerTransfer = 4;

// An idle connection older than this is closed rather than reused. It must outlast the longest
// politeness gap we keep (a host's Crawl-delay is capped at 30 s by default), and servers close idle
// connections on their own after about as long (nginx 75 s); libcurl's default is 118 s.
constexpr long kMaxIdleConnectionAgeS = 60;

}  // namespace

FetchResult cancelled_result(FetchRequest&& request, std::string why) {
  FetchResult result;
  result.id = request.id;
  result.url = std::move(request.url);
  result.outcome = FetchOutcome::kCancelled;
  result.error = std::move(why);
  return result;
}

void FetchContext::report(FetchResult&& result) {
  const uint64_t id = result.id;  // the callback may move from `result`
  try {
    on_complete(std::move(result));
  } catch (const std::exception& e) {
    spdlog::error("fetcher: completion callback threw for request {}: {}", id, e.what());
  } catch (...) {
    spdlog::error("fetcher: completion callback threw a non-exception for request {}", id);
  }
  in_flight.fetch_sub(1, std::memory_order_acq_rel);
}

void FetchContext::configure_easy(CURL* easy) const {
  set_tls_options(easy, options);
  dns->attach(easy);
  curl_easy_setopt(easy, CURLOPT_MAXAGE_CONN, kMaxIdleConnectionAgeS);
}

FetchWorker::FetchWorker(FetchContext& context) : context_(context), multi_(curl_multi_init()) {
  if (multi_ == nullptr) throw std::runtime_error("fetcher: curl_multi_init failed");
  const FetchOptions& options = context.options;
  curl_multi_setopt(multi_, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
  curl_multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(options.max_host_connections));
  curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS,
                    kCachedConnectionsPerTransfer * static_cast<long>(options.transfers_per_thread));
  thread_ = std::thread([this] { run(); });
}

FetchWorker::~FetchWorker() {
  stop();              // leaves no transfer in the multi handle
  transfers_.clear();  // easy handles go before the multi handle that cached their connections
  curl_multi_cleanup(multi_);
}

bool FetchWorker::submit(FetchRequest& request) {
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return false;
    wake = queue_.empty() || gated_;
    queue_.push_back(std::move(request));
  }
  // A wakeup is a write to libcurl's socketpair: one per request showed in crawl profiles. The
  // request that makes the queue non-empty wakes the worker; the ones queued behind it are taken
  // by the same pass, or, when no transfer slot is free, as soon as a transfer ends (run()). Only
  // while the resolve gate holds the queue with slots free does every request wake it.
  if (wake) curl_multi_wakeup(multi_);
  return true;
}

void FetchWorker::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  curl_multi_wakeup(multi_);
  if (thread_.joinable()) thread_.join();
}

void FetchWorker::run() {
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) break;
    }
    start_queued();
    int running = 0;
    curl_multi_perform(multi_, &running);
    note_resolved();
    // Slots just freed take the requests waiting for them before the worker sleeps: their
    // submits did not wake it (submit()).
    if (collect_finished() > 0 && has_queued()) continue;
    curl_multi_poll(multi_, nullptr, 0, kPollMs, nullptr);
  }
  cancel_all();
}

std::vector<FetchWorker::Startable> FetchWorker::take_startable() {
  const size_t capacity = context_.options.transfers_per_thread;
  const auto now = ResolveGate::Clock::now();
  std::vector<Startable> starting;
  std::lock_guard lock(mutex_);
  bool gate_full = false;
  for (auto it = queue_.begin(); it != queue_.end() && active_.size() + starting.size() < capacity;) {
    std::string key = resolve_key(it->url);
    // Every request asks the gate, even after a refusal: a host resolved within the TTL needs no
    // slot and starts whatever waits before it (docs/fetcher.md, DNS).
    const ResolveGate::Admit admit = context_.resolves->begin(key, now);
    if (admit == ResolveGate::Admit::kWait) {
      gate_full = true;
      ++it;
      continue;
    }
    if (admit != ResolveGate::Admit::kResolving) key.clear();
    starting.push_back({std::move(*it), std::move(key)});
    it = queue_.erase(it);
  }
  gated_ = gate_full && active_.size() + starting.size() < capacity;
  return starting;
}

void FetchWorker::start_queued() {
  for (Startable& start : take_startable()) {
    if (idle_.empty()) {
      transfers_.push_back(std::make_unique<FetchTransfer>(context_.options, context_.accepted, context_.guard.get()));
      context_.configure_easy(transfers_.back()->easy());
      idle_.push_back(transfers_.back().get());
    }
    FetchTransfer* transfer = idle_.back();
    idle_.pop_back();
    if (!start.resolve_key.empty()) resolving_.emplace(transfer, std::move(start.resolve_key));
    transfer->start(std::move(start.request));
    const CURLMcode code = curl_multi_add_handle(multi_, transfer->easy());
    if (code != CURLM_OK) {
      FetchResult result = transfer->finish(CURLE_FAILED_INIT);
      result.error = std::string("curl_multi_add_handle failed: ") + curl_multi_strerror(code);
      end_resolve(transfer, result.outcome);
      idle_.push_back(transfer);
      context_.report(std::move(result));
      continue;
    }
    active_.push_back(transfer);
  }
}

void FetchWorker::note_resolved() {
  for (auto it = resolving_.begin(); it != resolving_.end();) {
    curl_off_t lookup_us = 0;
    curl_easy_getinfo(it->first->easy(), CURLINFO_NAMELOOKUP_TIME_T, &lookup_us);
    if (lookup_us > 0) {
      context_.resolves->resolved(it->second, ResolveGate::Clock::now());
      it = resolving_.erase(it);
    } else {
      ++it;
    }
  }
}

void FetchWorker::end_resolve(FetchTransfer* transfer, FetchOutcome outcome) {
  auto it = resolving_.find(transfer);
  if (it == resolving_.end()) return;
  curl_off_t lookup_us = 0;
  curl_easy_getinfo(transfer->easy(), CURLINFO_NAMELOOKUP_TIME_T, &lookup_us);
  const auto now = ResolveGate::Clock::now();
  if (lookup_us > 0) {
    context_.resolves->resolved(it->second, now);
  } else if (outcome == FetchOutcome::kTimeout || outcome == FetchOutcome::kCancelled) {
    // Ended mid-resolve: libcurl detached the resolver thread, which may run on.
    context_.resolves->abandoned(now);
  } else {
    context_.resolves->failed();  // the resolve failed, or the transfer failed before it
  }
  resolving_.erase(it);
}

size_t FetchWorker::collect_finished() {
  size_t finished = 0;
  int remaining = 0;
  while (CURLMsg* message = curl_multi_info_read(multi_, &remaining)) {
    if (message->msg != CURLMSG_DONE) continue;
    CURL* easy = message->easy_handle;
    const CURLcode code = message->data.result;  // read before remove_handle frees the message
    FetchTransfer* transfer = nullptr;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, &transfer);
    curl_multi_remove_handle(multi_, easy);
    active_.erase(std::find(active_.begin(), active_.end(), transfer));
    FetchResult result = transfer->finish(code);
    end_resolve(transfer, result.outcome);
    idle_.push_back(transfer);
    context_.report(std::move(result));
    ++finished;
  }
  return finished;
}

bool FetchWorker::has_queued() const {
  std::lock_guard lock(mutex_);
  return !queue_.empty();
}

void FetchWorker::cancel_all() {
  for (FetchTransfer* transfer : active_) {
    curl_multi_remove_handle(multi_, transfer->easy());
    FetchResult result = transfer->cancel();
    end_resolve(transfer, result.outcome);
    idle_.push_back(transfer);
    context_.report(std::move(result));
  }
  active_.clear();
  std::deque<FetchRequest> queued;
  {
    std::lock_guard lock(mutex_);
    queued.swap(queue_);
  }
  for (FetchRequest& request : queued) {
    context_.report(cancelled_result(std::move(request), "fetcher stopped before the request started"));
  }
}

}  // namespace bloomcrawl
