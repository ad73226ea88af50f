#include "config/config_warnings.h"

#include <algorithm>

namespace bloomcrawl {

std::vector<std::string> config_warnings(const CrawlConfig& c) {
  std::vector<std::string> out;
  const PolitenessConfig defaults;
  const PolitenessConfig& p = c.politeness;
  if (!p.obey_robots) {
    // Sitemaps and Crawl-delay are read from robots.txt, which is then never fetched.
    const std::string why =
        " has no effect with /politeness/obey_robots off: robots.txt, where it applies, is not fetched";
    if (p.use_sitemaps_as_seeds) out.emplace_back("/politeness/use_sitemaps_as_seeds" + why);
    if (p.max_crawl_delay_s != defaults.max_crawl_delay_s) out.emplace_back("/politeness/max_crawl_delay_s" + why);
    if (p.robots_ttl_s != defaults.robots_ttl_s) out.emplace_back("/politeness/robots_ttl_s" + why);
    if (p.robots_unreachable_give_up_s != defaults.robots_unreachable_give_up_s) {
      out.emplace_back("/politeness/robots_unreachable_give_up_s" + why);
    }
    if (p.robots_agent != defaults.robots_agent) out.emplace_back("/politeness/robots_agent" + why);
  }
  if (c.output.edges && !c.output.pages_jsonl) {
    out.emplace_back(
        "/output/edges has no effect with /output/pages_jsonl off: edges.jsonl is written beside pages.jsonl");
  }
  const std::vector<std::string>& types = c.fetch.accepted_content_types;
  const auto html = [&](const char* type) { return std::ranges::find(types, type) != types.end(); };
  if (!html("text/html") && !html("application/xhtml+xml")) {
    out.emplace_back(
        "/fetch/accepted_content_types lists no HTML type: only HTML is parsed for links, so the crawl fetches its "
        "seeds (and sitemaps) only");
  }
  if (!c.canonicalization.strip_params && c.canonicalization.strip_param_names != kDefaultTrackingParams) {
    out.emplace_back("/canonicalization/strip_param_names has no effect with /canonicalization/strip_params off");
  }
  if (c.recrawl.enabled && !c.recrawl.continuous && c.checkpoint.directory.empty()) {
    // docs/recrawl.md: known pages are revisited by `crawl --resume`, which needs a checkpoint.
    out.emplace_back(
        "/recrawl/enabled without /checkpoint/directory: records get their next fetch time, but only a resumed "
        "crawl (or /recrawl/continuous) revisits them");
  }
  return out;
}

}  // namespace bloomcrawl
