#include "crawler/fetch/fetch_resolve.h"

#include <new>

namespace bloomcrawl {

ResolveOverrides::~ResolveOverrides() { curl_slist_free_all(list_); }

void ResolveOverrides::apply(CURL* easy, const std::vector<std::string>& entries) {
  for (const std::string& entry : entries) {
    curl_slist* grown = curl_slist_append(list_, entry.c_str());
    if (grown == nullptr) throw std::bad_alloc();  // list_ still owns what it had
    list_ = grown;
  }
  if (list_ != nullptr) curl_easy_setopt(easy, CURLOPT_RESOLVE, list_);
}

}  // namespace bloomcrawl
