// prometheus_text(): the crawl's metrics in the Prometheus text exposition format (0.0.4), from a
// Crawler::live_report() (crawler/pipeline/crawler.h). Built at scrape time from the counters the
// crawl keeps anyway, so the crawl pays nothing per page for them; serialized by prometheus-cpp's
// core TextSerializer. Names follow Prometheus conventions (bloomcrawl_..._total for counters,
// seconds and bytes); every metric and its source field: docs/metrics.md. A field missing from the
// report (no checkpoints, no --audit) leaves its metrics out rather than exporting zeros.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace bloomcrawl {

std::string prometheus_text(const nlohmann::json& live_report);

}  // namespace bloomcrawl
