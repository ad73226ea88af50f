// FetchWorker: one fetcher thread driving one curl multi handle.
//
// The multi handle is what makes connection reuse work: its easy handles share one connection
// cache and one DNS cache, and HTTP/2 streams to a host multiplex over one connection. The worker
// runs up to `transfers_per_thread` transfers and queues the rest. submit() may be called from any
// thread; it wakes the worker's poll with curl_multi_wakeup. stop() aborts everything and joins.
#pragma once

#include <curl/curl.h>

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "crawler/fetch/address_guard.h"
#include "crawler/fetch/fetch_transfer.h"
#include "crawler/fetch/fetcher.h"

namespace bloomcrawl {

// What every worker of one Fetcher shares (read-only, except the in-flight counter).
struct FetchContext {
  FetchOptions options;
  std::vector<std::string> accepted;    // options.accepted_content_types, normalized
  std::unique_ptr<AddressGuard> guard;  // null when the SSRF guard is off
  Fetcher::CompletionFn on_complete;
  std::atomic<size_t> in_flight{0};

  // Runs on_complete, then counts the request as done; a throwing callback is logged, not fatal.
  void report(FetchResult&& result);
};

// The result reporting `request` as kCancelled, `why` as its error.
FetchResult cancelled_result(FetchRequest&& request, std::string why);

class FetchWorker {
 public:
  explicit FetchWorker(FetchContext& context);
  ~FetchWorker();  // stops
  FetchWorker(const FetchWorker&) = delete;
  FetchWorker& operator=(const FetchWorker&) = delete;

  // Returns false (and leaves `request` untouched) if the worker is stopping.
  bool submit(FetchRequest& request);
  void stop();
  bool runs_on_this_thread() const { return thread_.get_id() == std::this_thread::get_id(); }

 private:
  void run();
  void start_queued();
  void collect_finished();
  void cancel_all();

  FetchContext& context_;
  CURLM* multi_ = nullptr;
  std::vector<std::unique_ptr<FetchTransfer>> transfers_;  // every handle ever created
  std::vector<FetchTransfer*> idle_;                       // reusable, not in the multi handle
  std::vector<FetchTransfer*> active_;                     // in the multi handle

  std::mutex mutex_;  // guards queue_ and stopping_
  std::deque<FetchRequest> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace bloomcrawl
