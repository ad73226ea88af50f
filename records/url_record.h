// UrlRecord: what the crawl knows of one URL the seen filter admitted (docs/records.md), its store
// key and value format (versions 1 to 3) and its JSON line for `bloomcrawl lookup` and `export`.
// Pure functions; the value never holds the URL, which is in the key.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bloomcrawl {

enum class UrlOutcome : uint8_t {
  kQueued = 1,   // admitted, not yet ended
  kFetched = 2,  // an HTTP response kept (any status)
  kFailed = 3,   // no usable response for good (a network error after the retries)
  kDropped = 4,  // ended without a fetch, with a reason (robots, scope at fetch time, limits at stop, ...)
};
std::string_view url_outcome_name(UrlOutcome outcome);  // "queued", "fetched", "failed", "dropped"

// UrlRecord::flags bits.
inline constexpr uint32_t kRecordTruncated = 1u << 0;             // the body was cut at the size limit
inline constexpr uint32_t kRecordRescuedFalsePositive = 1u << 1;  // the filter said "seen", the records did not
inline constexpr uint32_t kRecordSitemap = 1u << 2;               // a sitemap (read for its <loc>s, not as a page)

// UrlRecord::sitemap_changefreq: a sitemap's <changefreq>, 0 for none, then the protocol's values in
// order (1 always ... 7 never). sitemap_changefreq_name() is its word ("" for 0 or out of range).
inline constexpr uint8_t kChangefreqNever = 7;
std::string_view sitemap_changefreq_name(uint8_t changefreq);

// One revisit of a URL (recrawl: its change-rate estimate): the seconds since the fetch before it,
// and whether it found the page changed. A record keeps the last kRecordVisits, oldest first.
struct RecordVisit {
  int64_t interval_s = 0;  // >= 0
  bool changed = false;
  bool operator==(const RecordVisit&) const = default;
};
inline constexpr size_t kRecordVisits = 16;

struct UrlRecord {
  std::string url;  // canonical URL
  UrlOutcome outcome = UrlOutcome::kQueued;
  uint16_t http_status = 0;  // 0: none
  uint32_t depth = 0;
  uint64_t parent_hash = 0;       // url_record_hash() of the parent URL, 0 for a seed
  int64_t first_admitted_ms = 0;  // Unix ms
  int64_t last_fetched_ms = 0;    // 0: never
  uint32_t fetch_count = 0;
  uint64_t body_bytes = 0;
  std::string payload_sha1;         // 20 raw bytes or empty (WARC-Payload-Digest's SHA-1)
  std::string etag, last_modified;  // as received, empty if none
  int64_t next_fetch_ms = 0;        // 0: not scheduled (the recrawl issue sets it)
  std::string reason;               // kDropped/kFailed: why (the outcome word of pages.jsonl)
  uint32_t flags = 0;               // kRecord* bits
  std::string duplicate_of;         // the URL the same 200 body was first fetched at (content seen)
  int64_t sitemap_lastmod_s = 0;    // a sitemap's <lastmod> for the URL, Unix seconds; 0: none (recrawl)
  uint8_t sitemap_changefreq = 0;   // a sitemap's <changefreq> for the URL (above); 0: none
  std::vector<RecordVisit> visits;  // the last revisits, oldest first, at most kRecordVisits (recrawl)

  bool operator==(const UrlRecord&) const = default;
};

// XXH3-64 (seed 0) of a canonical URL: UrlRecord::parent_hash.
uint64_t url_record_hash(std::string_view url);

// The store key of `url`: the big-endian XXH3-64 of its authority, then the URL (docs/records.md,
// "Key layout"), so that one host's records are one key range. url_of_record_key() is the URL
// back; it throws CheckpointError for a key shorter than the hash.
std::string record_key(std::string_view url);
std::string_view url_of_record_key(std::string_view key);

// The value of `record`, without its URL: the lowest version that holds its fields. decode_url_record() is the inverse
// given the URL; it throws CheckpointError naming what is wrong (another version, a bad outcome, an unknown field, a
// truncated or out-of-range number, a string past the end, trailing bytes). The error's file is `url` (the record's
// name); a store rethrows it with its own directory.
std::string encode_url_record(const UrlRecord& record);
UrlRecord decode_url_record(std::string_view url, std::string_view value);

// The record as one JSON object on one line, every field present, hashes and the digest in hex
// (docs/records.md, "JSON line"); not newline-terminated. url_not_admitted_json() is the line for
// a URL the records do not hold: {"url":...,"admitted":false}.
std::string url_record_json(const UrlRecord& record);
std::string url_not_admitted_json(std::string_view url);

}  // namespace bloomcrawl
