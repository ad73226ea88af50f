// The default tracking query parameters: visitor tracking that never changes the page, removed
// with canonicalization.strip_params. One list for the crawl's config default and for the URL
// canonicalizer's (and so `bloomcrawl url --strip-params`), so a preview keys URLs as a crawl does.
#pragma once

#include <string>
#include <vector>

namespace bloomcrawl {

inline const std::vector<std::string> kDefaultTrackingParams = {
    "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "utm_id", "gclid", "dclid",
    "fbclid",     "msclkid",    "yclid",        "igshid",   "mc_cid",      "mc_eid", "_ga",   "_gl"};

}  // namespace bloomcrawl
