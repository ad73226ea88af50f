#include "crawler/pipeline/revisit_stats.h"

#include "crawler/pipeline/revisit_records.h"

namespace bloomcrawl {

void RevisitStats::count(std::string_view outcome, uint32_t links_new) {
  if (outcome == kUntrustedNotModified) untrusted_not_modified.fetch_add(1, std::memory_order_relaxed);
  if (!is_revisit_word(outcome)) return;
  revisited.fetch_add(1, std::memory_order_relaxed);
  (outcome == kNotModifiedWord ? not_modified
   : outcome == kUnchangedWord ? unchanged
   : outcome == kChangedWord   ? changed
                               : gone)
      .fetch_add(1, std::memory_order_relaxed);
  new_urls.fetch_add(links_new, std::memory_order_relaxed);
}

nlohmann::json RevisitStats::to_json() const {
  auto v = [](const std::atomic<uint64_t>& c) { return c.load(std::memory_order_relaxed); };
  return {{"queued", v(queued)},
          {"revisited", v(revisited)},
          {"not_modified", v(not_modified)},
          {"unchanged", v(unchanged)},
          {"changed", v(changed)},
          {"gone", v(gone)},
          {"untrusted_not_modified", v(untrusted_not_modified)},
          {"new_urls", v(new_urls)},
          {"bytes_saved", v(bytes_saved)},
          {"next_due_ms", next_due_ms.load(std::memory_order_relaxed)},
          {"due_within_hour", v(due_within_hour)}};
}

}  // namespace bloomcrawl
