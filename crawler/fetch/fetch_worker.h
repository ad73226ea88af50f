// FetchWorker: one fetcher thread driving one curl multi handle.
//
// The multi handle is what makes connection reuse work: its easy handles share one connection
// cache, and HTTP/2 streams to a host multiplex over one connection (the DNS cache is the
// fetcher's, shared by all workers). The worker runs up to `transfers_per_thread` transfers and
// queues the rest; a request whose host may need resolving also waits for a slot of the
// fetcher's ResolveGate, while requests behind it that need none go ahead. submit() may be called from any
// thread; it wakes the worker's poll with curl_multi_wakeup. stop() aborts everything and joins.
#pragma once

#include <curl/curl.h>

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "crawler/fetch/address_guard.h"
#include "crawler/fetch/dns_share.h"
#include "crawler/fetch/fetch_transfer.h"
#include "crawler/fetch/fetcher.h"
#include "crawler/fetch/resolve_gate.h"

namespace bloomcrawl {

// What every worker of one Fetcher shares (read-only, except the in-flight counter and the
// thread-safe DNS share and resolve gate).
struct FetchContext {
  FetchOptions options;
  std::vector<std::string> accepted;    // options.accepted_content_types, normalized
  std::unique_ptr<AddressGuard> guard;  // null when the SSRF guard is off
  Fetcher::CompletionFn on_complete;
  std::atomic<size_t> in_flight{0};
  std::unique_ptr<DnsShare> dns;
  std::unique_ptr<ResolveGate> resolves;

  // Runs on_complete, then counts the request as done; a throwing callback is logged, not fatal.
  void report(FetchResult&& result);
  // The options every easy handle gets besides FetchTransfer's own: TLS, the shared DNS cache,
  // how long an idle connection is kept.
  void configure_easy(CURL* easy) const;
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
  // Interrupts the worker's poll so it looks at its queue again (a resolve slot has freed).
  void wake() { curl_multi_wakeup(multi_); }
  void stop();
  bool runs_on_this_thread() const { return thread_.get_id() == std::this_thread::get_id(); }

 private:
  void run();
  void start_queued();
  // A queued request that may start now; resolve_key is set when it holds a ResolveGate slot.
  struct Startable {
    FetchRequest request;
    std::string resolve_key;
  };
  // Up to the free transfer slots, each past the gate, taken from the queue.
  std::vector<Startable> take_startable();
  // Reports the transfers that ended; returns how many.
  size_t collect_finished();
  bool has_queued() const;
  void cancel_all();
  // Ends the resolve slots of transfers whose name lookup has finished; with `transfer` (done),
  // ends its slot whatever happened, `outcome` saying how.
  void note_resolved();
  void end_resolve(FetchTransfer* transfer, FetchOutcome outcome);

  FetchContext& context_;
  CURLM* multi_ = nullptr;
  std::vector<std::unique_ptr<FetchTransfer>> transfers_;      // every handle ever created
  std::vector<FetchTransfer*> idle_;                           // reusable, not in the multi handle
  std::vector<FetchTransfer*> active_;                         // in the multi handle
  std::unordered_map<FetchTransfer*, std::string> resolving_;  // holding a gate slot, by resolve key

  mutable std::mutex mutex_;  // guards queue_, gated_ and stopping_
  std::deque<FetchRequest> queue_;
  // The last pass left requests queued with transfer slots free (the resolve gate held them): a
  // new request may be one that needs no resolve, so submit() wakes the worker for it.
  bool gated_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace bloomcrawl
