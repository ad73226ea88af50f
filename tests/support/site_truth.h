// Ground truth: the exact set of canonical URLs a correct polite crawler fetches from the seeds,
// computed by a breadth-first walk of the Site model (not of rendered HTML). Rules (docs/testweb.md):
//  - scope is the site's hosts on its port; out-of-scope and non-http links are never fetched;
//  - a URL disallowed by its host's robots.txt is never fetched (robots.txt itself is not listed);
//  - rel=nofollow links, and every link of a meta-robots/X-Robots-Tag nofollow page, are not followed;
//  - depth: seeds are 0, a followed link adds 1, a redirect does not (its target inherits the
//    depth of the redirecting URL); a page at depth max_depth is fetched but its links are not;
//  - a redirect's URL and its target are each fetched once; a target already seen is not refetched.
// Depth is the shortest-path depth. A concurrent crawler that fixes a URL's depth when it first
// discovers it fetches a subset below site_depth(); from site_depth() up the sets are equal except
// for the trap, whose pages within max_depth are listed and flagged.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/site_model.h"

namespace bloomcrawl::testweb {

struct TruthEntry {
  std::string url;  // canonical
  uint32_t depth = 0;
  int status = 200;
  bool trap = false;
};

struct GroundTruth {
  std::vector<TruthEntry> entries;  // sorted by url
  std::vector<std::string> urls() const;
  std::vector<std::string> trap_urls() const;
};

// Largest max_depth accepted while the site's trap is on (the trap is infinite).
inline constexpr uint32_t kMaxTrapDepth = 100000;

// Throws std::invalid_argument for a bad seed or max_depth > kMaxTrapDepth with the trap on.
GroundTruth compute_ground_truth(const Site& site, const std::vector<std::string>& seeds, uint32_t max_depth);

// The largest depth of a non-trap page: with max_depth >= this, only the trap depends on max_depth.
uint32_t site_depth(const Site& site, const std::vector<std::string>& seeds);

}  // namespace bloomcrawl::testweb
