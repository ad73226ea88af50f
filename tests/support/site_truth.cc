#include "tests/support/site_truth.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <stdexcept>

#include "tests/support/site_url.h"

namespace bloomcrawl::testweb {
namespace {

// 0-1 breadth-first walk (redirects cost 0, links cost 1) over fetchable URLs.
std::map<std::string, TruthEntry> walk(const Site& site, const std::vector<std::string>& seeds, uint32_t max_depth,
                                       bool expand_trap) {
  std::map<std::string, TruthEntry> reached;
  std::deque<std::pair<std::string, uint32_t>> queue;
  auto reach = [&](const std::string& url, uint32_t depth, bool front) {
    auto located = site.locate(url);
    if (!located || !site.robots(located->first).allowed(located->second)) return;
    auto [it, inserted] = reached.try_emplace(url, TruthEntry{url, depth});
    if (!inserted && it->second.depth <= depth) return;
    it->second.depth = depth;
    if (front)
      queue.emplace_front(url, depth);
    else
      queue.emplace_back(url, depth);
  };
  for (const auto& seed : seeds) {
    auto canonical = parse_http_url(seed);
    if (!canonical) throw std::invalid_argument("ground truth: seed is not an http URL: " + seed);
    reach(to_string(*canonical), 0, false);
  }
  while (!queue.empty()) {
    auto [url, depth] = queue.front();
    queue.pop_front();
    TruthEntry& entry = reached.at(url);
    if (entry.depth < depth) continue;  // a shorter path got there after this was queued
    const auto [host, path_query] = *site.locate(url);
    const SitePage page = site.page(host, path_query);
    entry.status = page.status;
    entry.trap = Site::is_trap(path_query);
    if (entry.trap && !expand_trap) continue;
    if (page.type == PageType::kRedirect) {
      if (!page.redirect_target.empty()) reach(page.redirect_target, depth, true);
      continue;
    }
    if (page.type != PageType::kHtml || !page.links_followable || depth >= max_depth) continue;
    for (const auto& link : page.links) {
      if (!link.nofollow && !link.target.empty()) reach(link.target, depth + 1, false);
    }
  }
  return reached;
}

}  // namespace

std::vector<std::string> GroundTruth::urls() const {
  std::vector<std::string> out;
  for (const auto& entry : entries) out.push_back(entry.url);
  return out;
}

std::vector<std::string> GroundTruth::trap_urls() const {
  std::vector<std::string> out;
  for (const auto& entry : entries) {
    if (entry.trap) out.push_back(entry.url);
  }
  return out;
}

GroundTruth compute_ground_truth(const Site& site, const std::vector<std::string>& seeds, uint32_t max_depth) {
  // Each hop into the trap adds pages, so an unbounded depth would never finish.
  if (site.options().trap && max_depth > kMaxTrapDepth) {
    throw std::invalid_argument("ground truth: max_depth " + std::to_string(max_depth) + " exceeds " +
                                std::to_string(kMaxTrapDepth) + " while the infinite trap is enabled");
  }
  GroundTruth truth;
  for (auto& [url, entry] : walk(site, seeds, max_depth, true)) truth.entries.push_back(std::move(entry));
  return truth;
}

uint32_t site_depth(const Site& site, const std::vector<std::string>& seeds) {
  uint32_t deepest = 0;
  for (const auto& [url, entry] : walk(site, seeds, std::numeric_limits<uint32_t>::max(), false)) {
    if (!entry.trap) deepest = std::max(deepest, entry.depth);
  }
  return deepest;
}

}  // namespace bloomcrawl::testweb
