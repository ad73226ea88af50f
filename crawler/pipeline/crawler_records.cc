// Crawler's records of what became of each admitted URL (crawler.h, "No silent loss"): the one
// place a pages.jsonl record is written, which also brings the URL's record (crawl_records.h) to
// the same outcome.
#include <spdlog/spdlog.h>

#include "base/data_error.h"
#include "crawler/output/page_log.h"
#include "crawler/pipeline/crawl_checkpointer.h"
#include "crawler/pipeline/crawler.h"

namespace bloomcrawl {

std::string refusal_outcome(AdmitResult refusal) {
  return refusal == AdmitResult::kHostQueueFull ? "max_queued_per_host" : admit_result_name(refusal);
}

// The URL record first: a records store that fails leaves no pages.jsonl line that a resume,
// fetching the page again, would write twice.
void Crawler::write_record(const PageRecord& record) {
  checkpointer_->records().ended(record);
  if (page_log_) checkpointer_->on_record_written(record.url, page_log_->write_page(record));
  stats_.add_outcome(record.outcome);
  stats_.revisits.count(record.outcome, record.links_new);
}

// The seen filter admitted the URL, so it is never offered again: its record says why it is not
// fetched. False if the write failed, which stops the crawl: the caller keeps the URL for a resume.
bool Crawler::record_refusal(std::string_view url, std::string_view parent, uint32_t depth, AdmitResult refusal) {
  stats_.add_refusal(admit_result_name(refusal));
  const std::string outcome = refusal_outcome(refusal);
  if (record_or_fail({.url = std::string(url), .parent = std::string(parent), .depth = depth, .outcome = outcome})) {
    return true;
  }
  spdlog::error("{}: admitted, but its {} record is not written", url, outcome);
  return false;
}

bool Crawler::record_or_fail(const PageRecord& record) {
  try {
    write_record(record);
    return true;
  } catch (const CheckpointError& e) {
    fail(e.what());
    return false;
  }
}

}  // namespace bloomcrawl
