// ResolveOverrides: the fetcher's fixed name-to-address entries (FetchOptions::resolve, the config's
// `fetch.resolve`), as libcurl's CURLOPT_RESOLVE list on each easy handle: "HOST:PORT:ADDRESS",
// HOST "*" for every name not listed. A name so resolved never reaches DNS, so a test web of
// thousands of host names can live on loopback. The entries were checked by config validation
// (check_resolve_entry); libcurl ignores an entry it cannot parse. Owns the list, which libcurl
// reads at the start of every transfer, so it must outlive the handle it is applied to.
#pragma once

#include <curl/curl.h>

#include <string>
#include <vector>

namespace bloomcrawl {

class ResolveOverrides {
 public:
  ResolveOverrides() = default;
  ~ResolveOverrides();
  ResolveOverrides(const ResolveOverrides&) = delete;
  ResolveOverrides& operator=(const ResolveOverrides&) = delete;

  // Sets CURLOPT_RESOLVE to `entries` on `easy`, nothing when there are none. Once per object:
  // its one easy handle keeps the list for all its transfers.
  void apply(CURL* easy, const std::vector<std::string>& entries);

 private:
  curl_slist* list_ = nullptr;
};

}  // namespace bloomcrawl
