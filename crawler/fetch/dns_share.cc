#include "crawler/fetch/dns_share.h"

#include <stdexcept>

namespace bloomcrawl {

DnsShare::DnsShare(std::chrono::seconds ttl) : ttl_s_(static_cast<long>(ttl.count())), share_(curl_share_init()) {
  if (share_ == nullptr) throw std::runtime_error("fetcher: curl_share_init failed");
  curl_share_setopt(share_, CURLSHOPT_LOCKFUNC, &DnsShare::lock);
  curl_share_setopt(share_, CURLSHOPT_UNLOCKFUNC, &DnsShare::unlock);
  curl_share_setopt(share_, CURLSHOPT_USERDATA, this);
  curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
}

DnsShare::~DnsShare() { curl_share_cleanup(share_); }

void DnsShare::attach(CURL* easy) const {
  curl_easy_setopt(easy, CURLOPT_SHARE, share_);
  curl_easy_setopt(easy, CURLOPT_DNS_CACHE_TIMEOUT, ttl_s_);
}

void DnsShare::lock(CURL* /*easy*/, curl_lock_data data, curl_lock_access /*access*/, void* self) {
  static_cast<DnsShare*>(self)->mutexes_[data].lock();
}

void DnsShare::unlock(CURL* /*easy*/, curl_lock_data data, void* self) {
  static_cast<DnsShare*>(self)->mutexes_[data].unlock();
}

}  // namespace bloomcrawl
