// QueuedUrl: what the crawler stores in the frontier for one URL. The frontier keeps opaque
// strings; the crawler packs the canonical URL, the page it was found on (pages.jsonl's
// "parent", as Heritrix keeps a URI's "via") and how many redirects led to it into one string.
// Canonical URLs never contain a space (the URL parser percent-encodes it), so a space separates.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace bloomcrawl {

struct QueuedUrl {
  std::string_view url;
  std::string_view parent;
  uint32_t redirect_hops = 0;
};

std::string encode_queued_url(std::string_view url, std::string_view parent, uint32_t redirect_hops);

// Views into `packed`, which must outlive the result.
QueuedUrl decode_queued_url(std::string_view packed);

}  // namespace bloomcrawl
