// RecordOutcome: what one outcome of a URL (a fetch, a failure, a drop) sets in its record
// (docs/records.md, "Outcome operand"), and apply_record_outcome(), the only code that changes a
// record for an outcome, whether its caller read the record (a put) or not (RecordStore::update: a
// RocksDB merge operand in the format below, applied by the store's merge operator).
// Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "records/url_record.h"

namespace bloomcrawl {

struct RecordOutcome {
  UrlOutcome outcome = UrlOutcome::kQueued;
  std::string reason;         // the record's reason ("" for a plain fetch)
  bool not_modified = false;  // a 304 to a revisit: the capture is kept, validators updated
  int64_t fetched_ms = 0;     // 0: no request was sent (nothing but outcome and reason changes)
  uint32_t http_status = 0;
  uint64_t body_bytes = 0;
  std::string payload_sha1;  // 20 raw bytes or empty
  bool truncated = false;
  std::string etag, last_modified, duplicate_of;
  // The record made when the store holds none for the URL (an operand applied to nothing).
  uint32_t depth = 0;
  uint64_t parent_hash = 0;
  int64_t admitted_ms = 0;

  bool operator==(const RecordOutcome&) const = default;
};

// Whether the record holds a capture a revisit can be compared with: a fetch count and a status.
bool has_capture(const UrlRecord& record);

// `outcome` applied to `record` (its other fields as they were): a fetch counted once however
// often the same one is applied.
void apply_record_outcome(UrlRecord& record, const RecordOutcome& outcome);

// The record an operand makes for `url` when the store holds none: queued, with its admission fields.
UrlRecord record_made_by(std::string_view url, const RecordOutcome& outcome);

// The operand `operand` of `url` applied to `record`, which it makes first when it holds none (the
// store held no record): how both the store's merge operator and its pending batch apply one.
// Throws CheckpointError when the operand does not decode.
void apply_record_operand(std::optional<UrlRecord>& record, std::string_view url, std::string_view operand);

// The operand of `outcome` (version 1); decode_record_outcome() is the inverse and throws
// CheckpointError naming `url` and what is wrong (docs/records.md lists what it rejects).
std::string encode_record_outcome(const RecordOutcome& outcome);
RecordOutcome decode_record_outcome(std::string_view url, std::string_view operand);

}  // namespace bloomcrawl
