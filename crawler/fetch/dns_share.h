// DnsShare: one libcurl DNS cache for every easy handle of a fetcher, across its worker threads.
//
// Without it each worker's multi handle keeps its own cache, so a name is resolved once per thread
// that fetches from it (robots.txt and pages of one host may even land on different threads when
// callers route them differently). The cache is a CURLSH with CURL_LOCK_DATA_DNS, locked by
// libcurl through the callbacks here (one mutex per kind of shared data).
//
// Contract: attach() sets the share and the cache's entry lifetime on an easy handle; the share
// must outlive every handle attached to it. Thread-safe after construction.
#pragma once

#include <curl/curl.h>

#include <array>
#include <chrono>
#include <mutex>

namespace bloomcrawl {

class DnsShare {
 public:
  explicit DnsShare(std::chrono::seconds ttl);
  ~DnsShare();
  DnsShare(const DnsShare&) = delete;
  DnsShare& operator=(const DnsShare&) = delete;

  void attach(CURL* easy) const;

 private:
  static void lock(CURL* easy, curl_lock_data data, curl_lock_access access, void* self);
  static void unlock(CURL* easy, curl_lock_data data, void* self);

  const long ttl_s_;
  CURLSH* share_ = nullptr;
  std::array<std::mutex, CURL_LOCK_DATA_LAST> mutexes_;
};

}  // namespace bloomcrawl
