#include "crawler/fetch/fetcher.h"

#include <curl/curl.h>

#include <cstdio>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>

#include "crawler/fetch/fetch_content_type.h"
#include "crawler/fetch/fetch_tls.h"
#include "crawler/fetch/fetch_worker.h"

namespace bloomcrawl {
namespace {

void validate(const FetchOptions& options) {
  auto require = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("FetchOptions.") + what);
  };
  require(options.threads >= 1, "threads must be at least 1");
  require(options.transfers_per_thread >= 1, "transfers_per_thread must be at least 1");
  require(options.max_host_connections >= 1, "max_host_connections must be at least 1");
  require(options.connect_timeout.count() > 0, "connect_timeout must be positive");
  require(options.idle_timeout.count() > 0, "idle_timeout must be positive");
  require(options.total_timeout.count() > 0, "total_timeout must be positive");
  require(options.max_body_bytes > 0, "max_body_bytes must be positive");
  require(options.max_decoded_bytes > 0, "max_decoded_bytes must be positive");
  require(options.max_header_bytes > 0, "max_header_bytes must be positive");
  require(options.dns_cache_ttl.count() >= 0, "dns_cache_ttl must not be negative");
  require(options.max_resolves_in_flight >= 1, "max_resolves_in_flight must be at least 1");
}

// How long a resolve abandoned mid-way (its transfer timed out or was cancelled) keeps its gate
// slot: its detached getaddrinfo thread may run until glibc gives up, by default 5 s per try, 2
// tries, for each of up to 3 name servers.
constexpr std::chrono::seconds kAbandonedResolveHold{30};

}  // namespace

class Fetcher::Impl {
 public:
  Impl(FetchOptions options, CompletionFn on_complete) {
    validate(options);
    static std::once_flag curl_initialized;
    std::call_once(curl_initialized, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    for (const std::string& type : options.accepted_content_types) {
      for (std::string& normalized : parse_media_type_list(type)) {
        context_.accepted.push_back(std::move(normalized));
      }
    }
    if (options.ssrf_guard) context_.guard = std::make_unique<AddressGuard>(options.allowed_ranges);
    check_tls_options(options);
    context_.dns = std::make_unique<DnsShare>(options.dns_cache_ttl);
    context_.resolves = std::make_unique<ResolveGate>(options.max_resolves_in_flight, options.dns_cache_ttl,
                                                      kAbandonedResolveHold, [this] {
                                                        for (const auto& worker : workers_) worker->wake();
                                                      });
    context_.options = std::move(options);
    context_.on_complete = std::move(on_complete);
    for (unsigned i = 0; i < context_.options.threads; ++i) {
      workers_.push_back(std::make_unique<FetchWorker>(context_));
    }
  }

  void submit(FetchRequest request) {
    context_.in_flight.fetch_add(1, std::memory_order_acq_rel);
    FetchWorker& worker = *workers_[std::hash<std::string>{}(request.host) % workers_.size()];
    if (!worker.submit(request)) {
      context_.report(cancelled_result(std::move(request), "fetcher is stopped"));
    }
  }

  size_t in_flight() const { return context_.in_flight.load(std::memory_order_acquire); }

  void stop() {
    for (const auto& worker : workers_) {
      if (worker->runs_on_this_thread()) {
        throw std::logic_error("Fetcher::stop() called from a completion callback");
      }
    }
    for (const auto& worker : workers_) worker->stop();
  }

 private:
  FetchContext context_;
  std::vector<std::unique_ptr<FetchWorker>> workers_;
};

Fetcher::Fetcher(FetchOptions options, CompletionFn on_complete)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(on_complete))) {}

Fetcher::~Fetcher() {
  // stop() throws only on misuse (the fetcher destroyed from its own completion callback, whose
  // thread it would have to join) or when a worker cannot be joined. A destructor cannot report
  // either: the process ends as it always did, now saying why.
  try {
    impl_->stop();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bloomcrawl: ~Fetcher: %s\n", e.what());
    std::terminate();
  }
}

void Fetcher::submit(FetchRequest request) { impl_->submit(std::move(request)); }

size_t Fetcher::in_flight() const { return impl_->in_flight(); }

void Fetcher::stop() { impl_->stop(); }

}  // namespace bloomcrawl
