#include "records/url_record.h"

#include <algorithm>
#include <array>
#include <limits>

#include "base/checksum.h"
#include "base/coding.h"
#include "base/data_error.h"
#include "records/value_reader.h"

namespace bloomcrawl {
namespace {

// Version 2 adds field 13 (duplicate_of), version 3 fields 14 to 16 (the sitemap hints, the visits); a
// record is written as the lowest version that holds its fields, so older readers read what they can.
constexpr uint8_t kVersion = 3;
constexpr size_t kHostHashBytes = 8;
constexpr size_t kSha1Bytes = 20;

// The present bits of the value (docs/records.md, "Value format").
enum Field : unsigned {
  kHttpStatus,
  kDepth,
  kParentHash,
  kFirstAdmitted,
  kLastFetched,
  kFetchCount,
  kBodyBytes,
  kPayloadSha1,
  kEtag,
  kLastModified,
  kNextFetch,
  kReason,
  kFlags,
  kDuplicateOf,
  kSitemapLastmod,
  kSitemapChangefreq,
  kVisits,
  kFieldCount,
};

// The fields each version knows: those below this one.
constexpr Field kFieldsOfVersion[kVersion + 1] = {kHttpStatus, kDuplicateOf, kSitemapLastmod, kFieldCount};

uint8_t version_of(uint64_t present) {
  uint8_t version = 1;
  while ((present >> kFieldsOfVersion[version]) != 0) ++version;
  return version;
}

std::string_view authority_of(std::string_view url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return url;
  const std::string_view rest = url.substr(scheme_end + 3);
  return rest.substr(0, rest.find_first_of("/?#"));
}

// JSON string contents: escapes as JSON requires; a byte that is not part of valid UTF-8 is
// written as \u00XX (docs/records.md, "JSON line"), so the line is always valid JSON.
void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  auto escape_byte = [&](uint8_t byte) {
    out.append("\\u00");
    out.push_back(kHex[byte >> 4]);
    out.push_back(kHex[byte & 0xf]);
  };
  out.push_back('"');
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<uint8_t>(text[i]);
    if (c < 0x80) {
      if (c == '"' || c == '\\') {
        out.push_back('\\');
        out.push_back(static_cast<char>(c));
      } else if (c < 0x20 || c == 0x7f) {
        escape_byte(c);
      } else {
        out.push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    // A well-formed UTF-8 sequence (no overlongs, no surrogates, at most U+10FFFF) is copied.
    size_t length = 0;
    uint32_t min = 0;
    if (c >= 0xc2 && c <= 0xdf) {
      length = 2, min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
      length = 3, min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
      length = 4, min = 0x10000;
    }
    bool valid = length > 0 && i + length <= text.size();
    uint32_t code = length > 0 ? c & (0x7f >> length) : 0;
    for (size_t k = 1; valid && k < length; ++k) {
      const auto next = static_cast<uint8_t>(text[i + k]);
      valid = (next & 0xc0) == 0x80;
      code = (code << 6) | (next & 0x3f);
    }
    valid = valid && code >= min && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
    if (valid) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      escape_byte(c);
      ++i;
    }
  }
  out.push_back('"');
}

std::string hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * bytes.size());
  for (const char byte : bytes) {
    out.push_back(kHex[static_cast<uint8_t>(byte) >> 4]);
    out.push_back(kHex[static_cast<uint8_t>(byte) & 0xf]);
  }
  return out;
}

std::string hash_hex(uint64_t hash) {
  std::array<char, 8> bytes{};
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(hash >> (56 - 8 * i));
  return hex({bytes.data(), bytes.size()});
}

class JsonObject {
 public:
  JsonObject() { out_.push_back('{'); }
  JsonObject& string(const char* name, std::string_view value) {
    key(name);
    append_json_string(out_, value);
    return *this;
  }
  template <typename Integer>
  JsonObject& number(const char* name, Integer value) {
    key(name);
    out_.append(std::to_string(value));
    return *this;
  }
  // [{"interval_s":N,"changed":B}, ...]
  JsonObject& visits(const char* name, const std::vector<RecordVisit>& visits) {
    key(name);
    out_.push_back('[');
    for (const RecordVisit& v : visits) {
      if (out_.back() != '[') out_.push_back(',');
      out_.append("{\"interval_s\":" + std::to_string(v.interval_s) + ",\"changed\":" + (v.changed ? "true" : "false") +
                  "}");
    }
    out_.push_back(']');
    return *this;
  }
  JsonObject& boolean(const char* name, bool value) {
    key(name);
    out_.append(value ? "true" : "false");
    return *this;
  }
  std::string done() {
    out_.push_back('}');
    return std::move(out_);
  }

 private:
  void key(const char* name) {
    if (out_.size() > 1) out_.push_back(',');
    out_.push_back('"');
    out_.append(name);
    out_.append("\":");
  }
  std::string out_;
};

}  // namespace

std::string_view url_outcome_name(UrlOutcome outcome) {
  switch (outcome) {
    case UrlOutcome::kQueued: return "queued";
    case UrlOutcome::kFetched: return "fetched";
    case UrlOutcome::kFailed: return "failed";
    case UrlOutcome::kDropped: return "dropped";
  }
  return "unknown";
}

std::string_view sitemap_changefreq_name(uint8_t changefreq) {
  static constexpr std::string_view kNames[] = {"",       "always",  "hourly", "daily",
                                                "weekly", "monthly", "yearly", "never"};
  return changefreq <= kChangefreqNever ? kNames[changefreq] : "";
}

uint64_t url_record_hash(std::string_view url) { return checksum64(url.data(), url.size()); }

std::string record_key(std::string_view url) {
  const std::string_view authority = authority_of(url);
  const uint64_t host_hash = checksum64(authority.data(), authority.size());
  std::string key;
  key.reserve(kHostHashBytes + url.size());
  for (int shift = 56; shift >= 0; shift -= 8) key.push_back(static_cast<char>(host_hash >> shift));
  key.append(url);
  return key;
}

std::string_view url_of_record_key(std::string_view key) {
  if (key.size() < kHostHashBytes) {
    throw CheckpointError("records store key",
                          "of " + std::to_string(key.size()) + " bytes, shorter than its host hash");
  }
  return key.substr(kHostHashBytes);
}

std::string encode_url_record(const UrlRecord& r) {
  uint64_t present = 0;
  auto mark = [&present](Field field, bool set) { present |= static_cast<uint64_t>(set) << field; };
  mark(kHttpStatus, r.http_status != 0);
  mark(kDepth, r.depth != 0);
  mark(kParentHash, r.parent_hash != 0);
  mark(kFirstAdmitted, r.first_admitted_ms != 0);
  mark(kLastFetched, r.last_fetched_ms != 0);
  mark(kFetchCount, r.fetch_count != 0);
  mark(kBodyBytes, r.body_bytes != 0);
  mark(kPayloadSha1, !r.payload_sha1.empty());
  mark(kEtag, !r.etag.empty());
  mark(kLastModified, !r.last_modified.empty());
  mark(kNextFetch, r.next_fetch_ms != 0);
  mark(kReason, !r.reason.empty());
  mark(kFlags, r.flags != 0);
  mark(kDuplicateOf, !r.duplicate_of.empty());
  mark(kSitemapLastmod, r.sitemap_lastmod_s != 0);
  mark(kSitemapChangefreq, r.sitemap_changefreq != 0);
  mark(kVisits, !r.visits.empty());
  if (r.visits.size() > kRecordVisits) {
    throw CheckpointError(r.url, "URL record: " + std::to_string(r.visits.size()) + " visits, more than " +
                                     std::to_string(kRecordVisits));
  }
  if (!r.payload_sha1.empty() && r.payload_sha1.size() != kSha1Bytes) {
    throw CheckpointError(
        r.url, "URL record: a payload digest of " + std::to_string(r.payload_sha1.size()) + " bytes, not a SHA-1's 20");
  }

  std::string out;
  out.reserve(24 + r.etag.size() + r.last_modified.size() + r.reason.size() + r.payload_sha1.size());
  out.push_back(static_cast<char>(version_of(present)));
  out.push_back(static_cast<char>(r.outcome));
  append_varint(out, present);
  auto has = [present](Field field) { return (present >> field & 1) != 0; };
  if (has(kHttpStatus)) append_varint(out, r.http_status);
  if (has(kDepth)) append_varint(out, r.depth);
  if (has(kParentHash)) put_le(out, r.parent_hash, 8);
  if (has(kFirstAdmitted)) append_varint(out, static_cast<uint64_t>(r.first_admitted_ms));
  if (has(kLastFetched)) append_varint(out, static_cast<uint64_t>(r.last_fetched_ms));
  if (has(kFetchCount)) append_varint(out, r.fetch_count);
  if (has(kBodyBytes)) append_varint(out, r.body_bytes);
  if (has(kPayloadSha1)) out.append(r.payload_sha1);
  if (has(kEtag)) append_string(out, r.etag);
  if (has(kLastModified)) append_string(out, r.last_modified);
  if (has(kNextFetch)) append_varint(out, static_cast<uint64_t>(r.next_fetch_ms));
  if (has(kReason)) append_string(out, r.reason);
  if (has(kFlags)) append_varint(out, r.flags);
  if (has(kDuplicateOf)) append_string(out, r.duplicate_of);
  if (has(kSitemapLastmod)) append_varint(out, static_cast<uint64_t>(r.sitemap_lastmod_s));
  if (has(kSitemapChangefreq)) append_varint(out, r.sitemap_changefreq);
  if (has(kVisits)) {
    append_varint(out, r.visits.size());
    for (const RecordVisit& v : r.visits) {
      append_varint(out, static_cast<uint64_t>(std::max<int64_t>(v.interval_s, 0)) << 1 | uint64_t{v.changed});
    }
  }
  return out;
}

UrlRecord decode_url_record(std::string_view url, std::string_view value) {
  ValueReader in(url, value);
  const uint8_t version = in.byte("version");
  if (version < 1 || version > kVersion) in.fail("version " + std::to_string(version) + ", not 1 to 3");
  UrlRecord r;
  r.url = std::string(url);
  const uint8_t outcome = in.byte("outcome");
  if (outcome < static_cast<uint8_t>(UrlOutcome::kQueued) || outcome > static_cast<uint8_t>(UrlOutcome::kDropped)) {
    in.fail("outcome " + std::to_string(outcome) + ", not 1 to 4");
  }
  r.outcome = static_cast<UrlOutcome>(outcome);
  const uint64_t present = in.varint("present fields");
  if ((present >> kFieldsOfVersion[version]) != 0)
    in.fail("unknown fields (present bits " + std::to_string(present) + ")");
  auto has = [present](Field field) { return (present >> field & 1) != 0; };
  constexpr uint64_t kMax32 = std::numeric_limits<uint32_t>::max();
  if (has(kHttpStatus)) r.http_status = static_cast<uint16_t>(in.varint("HTTP status", 0xffff));
  if (has(kDepth)) r.depth = static_cast<uint32_t>(in.varint("depth", kMax32));
  if (has(kParentHash)) r.parent_hash = get_le(in.bytes(8, "parent hash"), 0, 8);
  if (has(kFirstAdmitted)) r.first_admitted_ms = static_cast<int64_t>(in.varint("first admitted time"));
  if (has(kLastFetched)) r.last_fetched_ms = static_cast<int64_t>(in.varint("last fetched time"));
  if (has(kFetchCount)) r.fetch_count = static_cast<uint32_t>(in.varint("fetch count", kMax32));
  if (has(kBodyBytes)) r.body_bytes = in.varint("body length");
  if (has(kPayloadSha1)) r.payload_sha1 = std::string(in.bytes(kSha1Bytes, "payload digest"));
  if (has(kEtag)) r.etag = in.string("ETag");
  if (has(kLastModified)) r.last_modified = in.string("Last-Modified");
  if (has(kNextFetch)) r.next_fetch_ms = static_cast<int64_t>(in.varint("next fetch time"));
  if (has(kReason)) r.reason = in.string("reason");
  if (has(kFlags)) r.flags = static_cast<uint32_t>(in.varint("flags", kMax32));
  if (has(kDuplicateOf)) r.duplicate_of = in.string("duplicate_of");
  if (has(kSitemapLastmod)) r.sitemap_lastmod_s = static_cast<int64_t>(in.varint("sitemap lastmod"));
  if (has(kSitemapChangefreq)) {
    r.sitemap_changefreq = static_cast<uint8_t>(in.varint("sitemap changefreq", kChangefreqNever));
  }
  if (has(kVisits)) {
    r.visits.resize(in.varint("visit count", kRecordVisits));
    for (RecordVisit& v : r.visits) {
      const uint64_t visit = in.varint("visit");
      v.interval_s = static_cast<int64_t>(visit >> 1);
      v.changed = (visit & 1) != 0;
    }
  }
  if (!in.at_end()) in.fail("bytes after the last field");
  return r;
}

std::string url_record_json(const UrlRecord& r) {
  return JsonObject()
      .string("url", r.url)
      .boolean("admitted", true)
      .string("outcome", url_outcome_name(r.outcome))
      .number("http_status", r.http_status)
      .number("depth", r.depth)
      .string("parent_hash", r.parent_hash == 0 ? "" : hash_hex(r.parent_hash))
      .number("first_admitted_ms", r.first_admitted_ms)
      .number("last_fetched_ms", r.last_fetched_ms)
      .number("fetch_count", r.fetch_count)
      .number("body_bytes", r.body_bytes)
      .string("payload_sha1", hex(r.payload_sha1))
      .string("etag", r.etag)
      .string("last_modified", r.last_modified)
      .number("next_fetch_ms", r.next_fetch_ms)
      .string("reason", r.reason)
      .number("flags", r.flags)
      .string("duplicate_of", r.duplicate_of)
      .number("sitemap_lastmod_s", r.sitemap_lastmod_s)
      .string("sitemap_changefreq", sitemap_changefreq_name(r.sitemap_changefreq))
      .visits("visits", r.visits)
      .done();
}

std::string url_not_admitted_json(std::string_view url) {
  return JsonObject().string("url", url).boolean("admitted", false).done();
}

}  // namespace bloomcrawl
