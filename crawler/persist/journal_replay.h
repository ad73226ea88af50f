// Replaying the journals written after a crawl checkpoint: what the crawl did between the
// checkpoint and its end (or a kill -9), folded into what a resume must redo.
//   - URLs new to the seen filter, in order (the crawler inserts them and queues the queued ones);
//   - pages completed: never fetched again (the crawler skips them when the frontier offers them);
//   - refetches: a page dispatched while it was still outstanding (dispatched, or in flight at
//     the cut, and not completed) is one the server sees twice; those seen in the journals are
//     counted here, the ones still outstanding at the end are counted when re-dispatched;
//   - a completed record that says where its page's outputs ended is trusted only if the caller's
//     check finds them on disk; one that fails it is left out (its page stays outstanding, to be
//     fetched again) and named in `outputs_lost`;
//   - page counters of the completed pages, so the report counts them, and the last counters
//     the crawl journaled (links, duplicates avoided...), which pages do not carry.
// A torn or damaged tail ends a journal (the rest of it is lost); it is reported in `problems`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "crawler/persist/journal_records.h"

namespace bloomcrawl {

// The default constructor is flagged only for nlohmann::json's own (noexcept), whose null path never
// reaches its JSON_THROW (nlohmann 3.11): nothing can escape.
// NOLINTNEXTLINE(bugprone-exception-escape): a false positive, explained above
struct JournalReplay {
  std::vector<AdmittedRecord> admitted;
  std::unordered_set<std::string> completed;
  std::vector<CompletedRecord> outcomes;  // the completed records that carry an outcome, in order
  std::unordered_set<std::string> outstanding;
  // Pages whose completed record was left out: its outputs were not on disk (a power loss).
  std::unordered_set<std::string> outputs_lost;
  std::vector<uint64_t> audit_false_positives;
  uint64_t refetched = 0;
  uint64_t pages_fetched = 0;  // completed with a response
  uint64_t pages_failed = 0;   // completed without one
  uint64_t bytes_received = 0;
  uint64_t fetch_ms_total = 0;
  uint64_t status_counts[6] = {};  // by status / 100
  nlohmann::json last_stats;       // null when no journal held a parsable stats record
  uint64_t records = 0;
  std::vector<std::string> problems;  // "FILE: torn record at offset N (...)", one per journal
};

// True if a completed record's outputs (CompletedRecord::outputs, set) are on disk.
using OutputsCheck = std::function<bool(const CompletedRecord&)>;

// `outstanding_at_cut`: CrawlManifest::outstanding of the checkpoint the journals follow.
// `outputs_on_disk`: empty trusts every completed record. Throws CheckpointError for a journal
// that is not one (bad magic, unreadable).
JournalReplay replay_journals(const std::vector<std::filesystem::path>& journals,
                              const std::vector<std::string>& outstanding_at_cut,
                              const OutputsCheck& outputs_on_disk = {});

// The same over journal bytes already in memory (tests, fuzzing).
void replay_journal_bytes(std::string_view bytes, const std::string& name, JournalReplay& into,
                          const OutputsCheck& outputs_on_disk = {});

}  // namespace bloomcrawl
