#include "crawler/persist/resume_point.h"

namespace bloomcrawl {

ResumePoint resume_point(const CrawlManifest& m, const JournalReplay& replay) {
  ResumePoint p;
  // A resume takes its page counters from the generation's stats (pages_done is the same count,
  // loaded a moment later in the cut) and adds the journal's completed pages.
  static const nlohmann::json::json_pointer kPages("/fetches/pages_fetched");
  const uint64_t generation_pages = m.stats.contains(kPages) ? m.stats.at(kPages).get<uint64_t>() : m.pages_done;
  p.pages_done = generation_pages + replay.pages_fetched;
  p.queued = m.queued + m.requeue.size();
  for (const AdmittedRecord& a : replay.admitted) p.queued += a.queued ? 1 : 0;
  p.completed_since = replay.completed.size();
  p.admitted_since = replay.admitted.size();
  p.in_flight_at_stop = replay.outstanding.size();
  return p;
}

}  // namespace bloomcrawl
