// status_page_html(): the live status page served at / (docs/metrics.md). One self-contained HTML
// document, no CDN and no build step: inline CSS, and inline JavaScript that polls /status.json
// every two seconds and draws the last hour's charts on <canvas>. Each figure sits in an element
// with a stable id (pages-fetched, pages-per-second, queued, ...) that tests and scripts may read.
#pragma once

#include <string_view>

namespace bloomcrawl {

std::string_view status_page_html();

}  // namespace bloomcrawl
