// RevisitStats: report.json's "revisits" (docs/recrawl.md, "Counters"): what the revisits of known
// pages found, and when the next records fall due. Updated from many threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

namespace bloomcrawl {

struct RevisitStats {
  std::atomic<uint64_t> queued{0};     // records due that were queued again
  std::atomic<uint64_t> revisited{0};  // revisits that ended with a response (the four below)
  std::atomic<uint64_t> not_modified{0}, unchanged{0}, changed{0}, gone{0};
  std::atomic<uint64_t> untrusted_not_modified{0};  // 304s no validator asked for (any page)
  std::atomic<uint64_t> new_urls{0};                // URLs first admitted from revisited pages
  std::atomic<uint64_t> bytes_saved{0};             // body bytes of the captures 304s did not send again
  // The last scan of the records (queue_due_revisits, keep_revisiting): the earliest next fetch
  // time of a record not queued (Unix ms, 0: none) and how many fall due within the hour after it.
  std::atomic<int64_t> next_due_ms{0};
  std::atomic<uint64_t> due_within_hour{0};

  // A pages.jsonl record's outcome word and its new links.
  void count(std::string_view outcome, uint32_t links_new);
  nlohmann::json to_json() const;
};

}  // namespace bloomcrawl
