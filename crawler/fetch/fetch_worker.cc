#include "crawler/fetch/fetch_worker.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

namespace bloomcrawl {
namespace {

// Upper bound on one curl_multi_poll wait; new work and stop() interrupt it with a wakeup, and
// libcurl shortens it to its own next timer, so this only bounds a lost-wakeup bug.
constexpr int kPollMs = 1000;

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

FetchWorker::FetchWorker(FetchContext& context) : context_(context), multi_(curl_multi_init()) {
  if (multi_ == nullptr) throw std::runtime_error("fetcher: curl_multi_init failed");
  const FetchOptions& options = context.options;
  curl_multi_setopt(multi_, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
  curl_multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(options.max_host_connections));
  // Keep idle connections for as many hosts as we can have transfers, so keep-alive pays off.
  curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(options.transfers_per_thread));
  thread_ = std::thread([this] { run(); });
}

FetchWorker::~FetchWorker() {
  stop();              // leaves no transfer in the multi handle
  transfers_.clear();  // easy handles go before the multi handle that cached their connections
  curl_multi_cleanup(multi_);
}

bool FetchWorker::submit(FetchRequest& request) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return false;
    queue_.push_back(std::move(request));
  }
  curl_multi_wakeup(multi_);
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
    collect_finished();
    curl_multi_poll(multi_, nullptr, 0, kPollMs, nullptr);
  }
  cancel_all();
}

void FetchWorker::start_queued() {
  const size_t capacity = context_.options.transfers_per_thread;
  std::vector<FetchRequest> starting;
  {
    std::lock_guard lock(mutex_);
    while (!queue_.empty() && active_.size() + starting.size() < capacity) {
      starting.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
  }
  for (FetchRequest& request : starting) {
    if (idle_.empty()) {
      transfers_.push_back(std::make_unique<FetchTransfer>(context_.options, context_.accepted, context_.guard.get()));
      idle_.push_back(transfers_.back().get());
    }
    FetchTransfer* transfer = idle_.back();
    idle_.pop_back();
    transfer->start(std::move(request));
    const CURLMcode code = curl_multi_add_handle(multi_, transfer->easy());
    if (code != CURLM_OK) {
      FetchResult result = transfer->finish(CURLE_FAILED_INIT);
      result.error = std::string("curl_multi_add_handle failed: ") + curl_multi_strerror(code);
      idle_.push_back(transfer);
      context_.report(std::move(result));
      continue;
    }
    active_.push_back(transfer);
  }
}

void FetchWorker::collect_finished() {
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
    idle_.push_back(transfer);
    context_.report(std::move(result));
  }
}

void FetchWorker::cancel_all() {
  for (FetchTransfer* transfer : active_) {
    curl_multi_remove_handle(multi_, transfer->easy());
    FetchResult result = transfer->cancel();
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
