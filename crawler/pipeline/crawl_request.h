// The requests the crawl pipeline hands to the fetcher, one kind per alternative: a page leased
// from the frontier, or a host's robots.txt. Each carries only what its own processing needs, and
// a page's queued entry (queued_url.h) is decoded once, when it is dispatched.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "crawler/fetch/fetcher.h"
#include "frontier/frontier_types.h"
#include "records/url_record.h"

namespace bloomcrawl {

struct PageRequest {
  Lease lease;
  // The lease's entry, decoded (QueuedUrl's fields, owned).
  std::string url;
  std::string parent;
  uint32_t redirect_hops = 0;
  bool sitemap = false;
  // With recrawl on, the URL's record when it holds a capture (a revisit, crawler_revisit.cc):
  // what the response is compared with, and the original a WARC revisit record refers to.
  std::optional<UrlRecord> previous;
};

// The frontier holds `host` until its origin's robots.txt is known. Every request (each redirect
// hop, each retry) is one of the host's prerequisites in the frontier, so it waits for the host's
// politeness key like a page (docs/politeness.md).
struct RobotsRequest {
  std::string host;
  std::string origin;       // "scheme://host[:port]", the robots cache key
  std::string url;          // the URL fetched (follows redirects)
  uint32_t hops = 0;        // redirects followed to get here
  uint32_t attempt = 0;     // earlier attempts that failed
  PrerequisiteLease lease;  // the key's slot, from when the request is sent until its answer
};

using CrawlRequest = std::variant<PageRequest, RobotsRequest>;

// A fetch the fetcher has reported, waiting for a parse worker.
struct CompletedFetch {
  CrawlRequest request;
  FetchResult result;
};

}  // namespace bloomcrawl
