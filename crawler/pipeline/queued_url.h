// QueuedUrl: what the crawler stores in the frontier for one URL. The frontier keeps opaque
// strings; the crawler packs the canonical URL, the page it was found on (pages.jsonl's
// "parent", as Heritrix keeps a URI's "via"), how many redirects led to it and whether it is a
// sitemap into one string. Canonical URLs never contain a space (the URL parser percent-encodes
// it), so a space separates the fields; trailing empty fields are left out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace bloomcrawl {

struct QueuedUrl {
  std::string_view url;
  std::string_view parent;
  uint32_t redirect_hops = 0;
  bool sitemap = false;  // fetched to read its <loc>s, not parsed as a page
};

std::string encode_queued_url(const QueuedUrl& q);

// Views into `packed`, which must outlive the result.
QueuedUrl decode_queued_url(std::string_view packed);

}  // namespace bloomcrawl
