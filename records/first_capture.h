// FirstCapture: the digest index's entry (docs/content-seen.md, "The digest index"): where and when
// a payload was first fetched, kept under its 20-byte SHA-1 in the records store's `digests`
// column family, so that a later 200 with the same body at another URL is found a duplicate.
// Value: the fetch time as a varint (Unix ms, as uint64), then the URL's bytes to the end.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace bloomcrawl {

struct FirstCapture {
  std::string url;         // canonical URL
  int64_t fetched_ms = 0;  // Unix ms of the request (the WARC record's date)
  bool operator==(const FirstCapture&) const = default;
};

std::string encode_first_capture(const FirstCapture& capture);
// Throws CheckpointError (file `what`) for a truncated or over-long varint or an empty URL.
FirstCapture decode_first_capture(std::string_view value, std::string_view what);

}  // namespace bloomcrawl
