// Crawler::admission_failed() (crawler.h): what admit() does when the frontier fails part-way
// through a page's links, so that admission never half-happens (docs/outcomes.md).
#include <spdlog/spdlog.h>

#include "base/data_error.h"
#include "crawler/output/page_log.h"
#include "crawler/pipeline/crawl_checkpointer.h"
#include "crawler/pipeline/crawler.h"

namespace bloomcrawl {

// The candidates from `from` on are in the seen filter and not in the frontier or the journal.
// The crawl stops. With checkpoints the page stays outstanding (this throws) and no generation
// from now on is committed, since its filter copy could hold them: a resume, from the last
// generation and its journals, fetches the page again and admits them. Without checkpoints there
// is no resume: each gets its record, not fetched at the stop, and the page its own (returns the
// number of them queued: none).
uint32_t Crawler::admission_failed(const std::vector<Candidate>& candidates, const std::vector<InsertOutcome>& outcomes,
                                   size_t from, uint32_t depth, const std::string& parent, const JournalBatch& batch,
                                   const std::exception& error) {
  // A CheckpointError (the frontier's store) names its directory; anything else is named here.
  const std::string why = dynamic_cast<const CheckpointError*>(&error) != nullptr
                              ? error.what()
                              : std::string("the frontier refused a URL: ") + error.what();
  checkpointer_->journal_admissions(batch);  // those queued before the failure: a resume queues them again
  spdlog::error("{}: the links of {} are not all admitted", why, parent.empty() ? "the seeds" : parent);
  if (checkpointer_->enabled()) {
    checkpointer_->refuse_generations(why);
    fail(why);
    throw CheckpointError(settings_.checkpoint.directory.string(),
                          "links not all admitted: the page is fetched again when the crawl is resumed");
  }
  fail(why);
  for (size_t i = from; i < candidates.size(); ++i) {
    if (outcomes[i] != InsertOutcome::kNew) continue;
    if (i != from) stats_.links_new.fetch_add(1, std::memory_order_relaxed);  // admit_new() counted `from`
    record_or_fail(
        {.url = candidates[i].url, .parent = parent, .depth = depth, .outcome = "not_fetched_at_stop", .error = why});
  }
  return 0;
}

}  // namespace bloomcrawl
