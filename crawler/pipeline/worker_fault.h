// The test seam for internal errors on the crawl's worker paths. CrawlerSettings::inject_fault,
// when set, is called where each path starts its work, with the URL at hand, and may throw to
// stand for a bug or exhausted memory there. The crawl must survive every such throw: the error is
// logged with the URL, a page gets a "crawler_error" record saying why (a robots.txt counts as a
// failed fetch of it and is retried), and the pending count returns to zero (docs/outcomes.md).
#pragma once

#include <functional>
#include <string_view>

namespace bloomcrawl {

enum class WorkerPath {
  kFetchComplete,   // a fetcher thread reports a result (Crawler::on_fetch_complete)
  kLinkExtraction,  // a parse worker takes an HTML page's links
  kRobots,          // a parse worker applies a robots.txt answer
  kPageProcessed,   // a parse worker tells the checkpointer a page is done
  kRobotsLookup,    // a URL's host is checked against robots.txt (Crawler::robots_verdict)
};

using FaultHook = std::function<void(WorkerPath path, std::string_view url)>;

}  // namespace bloomcrawl
