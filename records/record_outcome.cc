#include "records/record_outcome.h"

#include <limits>

#include "base/coding.h"
#include "records/value_reader.h"

namespace bloomcrawl {
namespace {

constexpr uint8_t kOperandVersion = 1;
constexpr uint8_t kTruncatedFlag = 1u << 0;
constexpr uint8_t kNotModifiedFlag = 1u << 1;
constexpr size_t kSha1Bytes = 20;

}  // namespace

bool has_capture(const UrlRecord& record) { return record.fetch_count > 0 && record.http_status != 0; }

void apply_record_outcome(UrlRecord& r, const RecordOutcome& o) {
  r.outcome = o.outcome;
  r.reason = o.reason;
  if (o.fetched_ms == 0) return;
  if (r.last_fetched_ms != o.fetched_ms) ++r.fetch_count;
  r.last_fetched_ms = o.fetched_ms;
  const bool fetched = o.outcome == UrlOutcome::kFetched;  // a failure's partial counts are not kept
  // A revisit that brought no body (a 304) or no answer keeps the capture; a 304 may bring updated
  // validators.
  if (o.not_modified || (!fetched && has_capture(r))) {
    if (o.not_modified && !o.etag.empty()) r.etag = o.etag;
    if (o.not_modified && !o.last_modified.empty()) r.last_modified = o.last_modified;
    return;
  }
  r.http_status = fetched ? static_cast<uint16_t>(o.http_status) : 0;
  r.body_bytes = fetched ? o.body_bytes : 0;
  r.payload_sha1 = o.payload_sha1;
  r.etag = fetched ? o.etag : "";
  r.last_modified = fetched ? o.last_modified : "";
  r.duplicate_of = fetched ? o.duplicate_of : "";
  r.flags = o.truncated ? r.flags | kRecordTruncated : r.flags & ~kRecordTruncated;
}

UrlRecord record_made_by(std::string_view url, const RecordOutcome& o) {
  UrlRecord r;
  r.url = std::string(url);
  r.depth = o.depth;
  r.parent_hash = o.parent_hash;
  r.first_admitted_ms = o.admitted_ms;
  return r;
}

void apply_record_operand(std::optional<UrlRecord>& record, std::string_view url, std::string_view operand) {
  const RecordOutcome outcome = decode_record_outcome(url, operand);
  if (!record) record = record_made_by(url, outcome);
  apply_record_outcome(*record, outcome);
}

std::string encode_record_outcome(const RecordOutcome& o) {
  std::string out;
  out.reserve(48 + o.reason.size() + o.etag.size() + o.last_modified.size() + o.duplicate_of.size());
  out.push_back(static_cast<char>(kOperandVersion));
  out.push_back(static_cast<char>(o.outcome));
  out.push_back(static_cast<char>((o.truncated ? kTruncatedFlag : 0) | (o.not_modified ? kNotModifiedFlag : 0)));
  append_string(out, o.reason);
  append_varint(out, static_cast<uint64_t>(o.fetched_ms));
  append_varint(out, o.http_status);
  append_varint(out, o.body_bytes);
  append_string(out, o.payload_sha1);
  append_string(out, o.etag);
  append_string(out, o.last_modified);
  append_string(out, o.duplicate_of);
  append_varint(out, o.depth);
  put_le(out, o.parent_hash, 8);
  append_varint(out, static_cast<uint64_t>(o.admitted_ms));
  return out;
}

RecordOutcome decode_record_outcome(std::string_view url, std::string_view operand) {
  ValueReader in(url, operand, "URL record outcome: ");
  const uint8_t version = in.byte("version");
  if (version != kOperandVersion) in.fail("version " + std::to_string(version) + ", not 1");
  RecordOutcome o;
  const uint8_t outcome = in.byte("outcome");
  if (outcome < static_cast<uint8_t>(UrlOutcome::kQueued) || outcome > static_cast<uint8_t>(UrlOutcome::kDropped)) {
    in.fail("outcome " + std::to_string(outcome) + ", not 1 to 4");
  }
  o.outcome = static_cast<UrlOutcome>(outcome);
  const uint8_t flags = in.byte("flags");
  if ((flags & ~(kTruncatedFlag | kNotModifiedFlag)) != 0) in.fail("unknown flags " + std::to_string(flags));
  o.truncated = (flags & kTruncatedFlag) != 0;
  o.not_modified = (flags & kNotModifiedFlag) != 0;
  constexpr uint64_t kMax32 = std::numeric_limits<uint32_t>::max();
  o.reason = in.string("reason");
  o.fetched_ms = static_cast<int64_t>(in.varint("fetch time"));
  o.http_status = static_cast<uint32_t>(in.varint("HTTP status", 0xffff));
  o.body_bytes = in.varint("body length");
  o.payload_sha1 = in.string("payload digest");
  if (!o.payload_sha1.empty() && o.payload_sha1.size() != kSha1Bytes) {
    in.fail("a payload digest of " + std::to_string(o.payload_sha1.size()) + " bytes, not 0 or 20");
  }
  o.etag = in.string("ETag");
  o.last_modified = in.string("Last-Modified");
  o.duplicate_of = in.string("duplicate_of");
  o.depth = static_cast<uint32_t>(in.varint("depth", kMax32));
  o.parent_hash = get_le(in.bytes(8, "parent hash"), 0, 8);
  o.admitted_ms = static_cast<int64_t>(in.varint("admission time"));
  if (!in.at_end()) in.fail("bytes after the last field");
  return o;
}

}  // namespace bloomcrawl
