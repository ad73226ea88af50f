// WARC revisit records (WARC 1.1 §6.7, docs/recrawl.md "WARC revisit records"): a revisit that
// brought no new content is archived as a `revisit` record pointing at the original capture,
// instead of a second copy of the body.
//
// Contract:
// - A 304 (FetchOutcome::kNotModified) becomes the server-not-modified profile; a 200 whose
//   payload digest equals the original's becomes identical-payload-digest, with WARC-Truncated:
//   length since its body is left out. Either way the block is the HTTP response head as received
//   and nothing else, and the request record follows as for a response.
// - WARC-Refers-To-Target-URI and WARC-Refers-To-Date name the original capture;
//   WARC-Payload-Digest is the original's payload digest.
// - The CDXJ line says "mime":"warc/revisit", as pywb and warcio's indexer write for revisits.
#pragma once

#include <optional>
#include <string_view>

#include "crawler/fetch/fetcher.h"
#include "crawler/output/warc_writer.h"

namespace bloomcrawl {

inline constexpr std::string_view kServerNotModifiedProfile =
    "http://netpreserve.org/warc/1.1/revisit/server-not-modified";
inline constexpr std::string_view kIdenticalPayloadDigestProfile =
    "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest";

// What the archive holds of the page's earlier capture. The views must outlive the exchange.
struct OriginalCapture {
  std::string_view url;             // its WARC-Target-URI
  std::string_view date;            // its WARC-Date, as written (rfc3339_utc_ms)
  std::string_view payload_digest;  // its WARC-Payload-Digest ("sha1:...")
};

// The revisit exchange of `result` (fetched with FetchOptions::capture_headers), or nothing when
// the result is new content: neither a 304 to a conditional request nor a payload identical to the
// original's. Views into `result` and `original`.
std::optional<WarcExchange> warc_revisit_of(const FetchResult& result, const OriginalCapture& original);

}  // namespace bloomcrawl
