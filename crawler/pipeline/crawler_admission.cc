// Crawler::seed() and Crawler::admission_failed() (crawler.h): the seeds' admission, and what
// admit() does when the frontier fails part-way through a page's links, so that admission never
// half-happens (docs/outcomes.md).
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "base/data_error.h"
#include "crawler/output/page_log.h"
#include "crawler/pipeline/crawl_checkpointer.h"
#include "crawler/pipeline/crawler.h"
#include "crawler/url/canonical.h"

namespace bloomcrawl {

// A resume admits again the seeds its filter lacks: a fresh crawl whose store failed part-way
// through them journaled only those queued before the failure (the rest are in no generation's
// filter), and the failed crawl had no page to fetch again that would find them.
void Crawler::seed() {
  if (checkpointer_->resuming()) queue_due_revisits();
  std::vector<Candidate> candidates;
  for (const std::string& seed : settings_.seeds) {
    CanonicalUrl c = canonicalize(seed, nullptr, settings_.canonicalize);
    if (!c.ok()) {
      spdlog::error("seed '{}' skipped: {}", seed, c.error);
      stats_.add_drop("invalid_seed");
      continue;
    }
    if (checkpointer_->resuming() && filter_.contains(c.url)) continue;
    candidates.push_back({c.url, c.host, LinkKind::kAnchor});
  }
  if (candidates.empty()) {
    if (checkpointer_->resuming()) return;
    throw std::invalid_argument("none of the seed URLs is a valid http(s) URL");
  }
  // Seeds are in scope by definition (same_host), so they skip the scope check.
  admit(candidates, 0, "", 0);
}

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
                              : std::string("a link not admitted: ") + error.what();
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
