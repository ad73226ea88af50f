// The one timestamp form of the crawl's outputs: RFC 3339 in UTC with milliseconds,
// "2026-12-02T00:05:10.123Z". pages.jsonl's fetch_time and WARC-Date use it, so they join.
#pragma once

#include <chrono>
#include <string>

namespace bloomcrawl {

std::string rfc3339_utc_ms(std::chrono::system_clock::time_point t);

}  // namespace bloomcrawl
