// Crawler's content-seen test (docs/content-seen.md): the payload digest of a 200 body looked up in
// the digest index beside the URL records; a body first fetched at another URL makes the page that
// URL's duplicate in pages.jsonl, its URL record and its journal record, and is archived as a WARC
// revisit record referring to the first capture when it is long enough to be worth it.
#include <chrono>
#include <optional>

#include "crawler/output/page_log.h"
#include "crawler/output/timestamp.h"
#include "crawler/output/warc_revisit.h"
#include "crawler/output/warc_writer.h"
#include "crawler/pipeline/crawl_checkpointer.h"
#include "crawler/pipeline/crawl_records.h"
#include "crawler/pipeline/crawler.h"

namespace bloomcrawl {

bool Crawler::see_content(const FetchResult& result, PageRecord& record) {
  const ContentSeenConfig& config = settings_.content_seen;
  std::optional<FirstCapture> first;
  // A body cut at a limit has no payload digest; another status's body (an error page) says
  // nothing of the page.
  if (config.digest && result.status == 200 && result.content_accepted) {
    first = checkpointer_->records().first_capture_of(record.url, result.payload_digest, unix_ms(result.fetch_time));
  }
  if (first) {
    record.duplicate_of = first->url;
    checkpointer_->on_page_duplicate(result.id, first->url);
    stats_.exact_duplicates.fetch_add(1, std::memory_order_relaxed);
  }
  if (warc_ && result.content_accepted) {
    const WarcExchange exchange = warc_exchange_of(result);
    std::optional<WarcExchange> revisit;
    std::string first_date;  // outlives `revisit`, which views it
    if (first && exchange.body.size() >= uint64_t(config.min_warc_dedup_bytes)) {
      first_date = rfc3339_utc_ms(std::chrono::system_clock::time_point(std::chrono::milliseconds(first->fetched_ms)));
      revisit =
          warc_revisit_of(result, {.url = first->url, .date = first_date, .payload_digest = result.payload_digest});
    }
    if (revisit) stats_.warc_bytes_saved.fetch_add(exchange.body.size(), std::memory_order_relaxed);
    archive(result.id, revisit ? *revisit : exchange);
  }
  return !(first && config.skip_links_of_duplicates);
}

}  // namespace bloomcrawl
