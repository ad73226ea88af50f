// What a resume from a crawl checkpoint continues from: its generation and the journals after
// it, folded as CrawlCheckpointer's resume folds them (crawl_checkpointer.cc: the generation's
// counters and frontier, its requeued leases, then the replay), without building the crawl.
// `bloomcrawl inspect` prints it; after a kill -9 the generation alone can be far behind.
#pragma once

#include <cstdint>

#include "crawler/persist/crawl_checkpoint.h"
#include "crawler/persist/journal_replay.h"

namespace bloomcrawl {

struct ResumePoint {
  uint64_t pages_done = 0;  // pages fetched (responses): the generation's and the journal's
  // URLs the resumed frontier holds: the generation's, the leases it requeues and those admitted
  // since (frontier limits aside, which may refuse a requeued lease).
  uint64_t queued = 0;
  uint64_t completed_since = 0;    // of those, completed before the stop: skipped, not fetched again
  uint64_t admitted_since = 0;     // URLs new to the seen filter since the generation
  uint64_t in_flight_at_stop = 0;  // dispatched and not completed: a resume fetches them again
};

ResumePoint resume_point(const CrawlManifest& manifest, const JournalReplay& replay);

}  // namespace bloomcrawl
