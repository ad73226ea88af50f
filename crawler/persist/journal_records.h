// The typed records of a crawl journal (journal.h frames them; docs/checkpoint-format.md
// specifies the payloads). Together with the checkpoint they were written after, they rebuild
// what the crawl did since: URLs new to the seen filter (and whether the frontier queued them),
// fetches dispatched, pages completed (fetched and their links admitted), and audit hits.
// Decoding a malformed payload throws std::runtime_error saying what was wrong.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "crawler/persist/journal.h"

namespace bloomcrawl {

enum class JournalRecordType : uint8_t {
  kAdmitted = 1,            // a URL new to the seen filter
  kDispatched = 2,          // a page handed to the fetcher
  kCompleted = 3,           // a page fetched (or failed for good) and its links admitted
  kAuditFalsePositive = 4,  // the filter said "seen" for a URL the exact audit set did not hold
  kStats = 5,               // the crawl's counters now (CrawlStats::to_json()), about once a second
};

struct AdmittedRecord {
  std::string host;   // the frontier's host key
  std::string entry;  // the frontier entry (encode_queued_url)
  uint32_t depth = 0;
  bool queued = false;  // false: the frontier refused it (a limit); the filter still holds it
  // Optional (absent in journals before the URL records): for the URL record a replay rebuilds.
  int64_t admitted_ms = 0;  // Unix ms; 0: unknown
  std::string refusal;      // !queued: the outcome word of its pages.jsonl record
};

struct DispatchedRecord {
  std::string url;  // canonical URL
};

// Where a page's outputs ended when its completed record was written, so that a resume trusts the
// record only if they reached the disk (docs/checkpoint-format.md, "Durable before done").
struct CompletedOutputs {
  uint64_t pages_end = 0;  // pages.jsonl: the end of the page's own line
  uint64_t edges_end = 0;  // edges.jsonl: its length then, past the page's edges line (0: none)
  std::string warc_file;   // the WARC file holding the page's exchange, its completed name ("": none)
  uint64_t warc_end = 0;   // that file's length then, past the exchange
};

struct CompletedRecord {
  std::string url;
  uint32_t status = 0;  // 0: no response (a failure that will not be retried)
  uint64_t bytes = 0;
  uint32_t fetch_ms = 0;
  std::optional<CompletedOutputs> outputs;  // absent: trusted as it is (held until its outputs were synced)
  // Optional (absent in journals before the URL records, and in a resume's carried records): what
  // the page's URL record holds (docs/records.md, "In the crawl").
  std::string outcome;         // pages.jsonl's outcome word; empty: none carried
  int64_t fetched_ms = 0;      // Unix ms of the request, 0: none sent
  std::string payload_digest;  // "sha1:BASE32" or empty
  bool truncated = false;
  std::string etag;  // the validators as received, empty if none
  std::string last_modified;
  std::string duplicate_of;  // the URL the same 200 body was first fetched at (docs/content-seen.md)
};

struct AuditFalsePositiveRecord {
  uint64_t url_hash = 0;
};

struct StatsRecord {
  std::string json;  // JSON text
};

using JournalEntry =
    std::variant<AdmittedRecord, DispatchedRecord, CompletedRecord, AuditFalsePositiveRecord, StatsRecord>;

void add_record(JournalBatch& batch, const JournalEntry& entry);
// nullopt for a type this version does not know (skipped, so a newer writer's extra records
// do not block a resume); throws std::runtime_error for a malformed payload.
std::optional<JournalEntry> decode_record(const JournalRecord& record);

}  // namespace bloomcrawl
