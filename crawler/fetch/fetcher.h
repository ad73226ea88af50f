// Fetcher: fetches URLs over HTTP(S) with libcurl, many at a time, under hard limits.
//
// Contract:
// - `threads` worker threads each drive one curl multi handle with up to `transfers_per_thread`
//   concurrent transfers; requests beyond that wait in the worker's queue. A request is routed to a
//   worker by the host its caller names (FetchRequest::host), so one host's requests share that
//   worker's connections (keep-alive, HTTP/2 multiplexing). The fetcher does not parse the URL to
//   find it: the caller already knows it. The DNS cache is shared by all workers.
// - TLS certificates are verified unless `tls_verify` is false (a warning is logged at start); a
//   failed verification is that request's kTlsError, naming the reason.
// - submit() is thread-safe and never blocks on the network. Every submitted request is reported
//   exactly once to `on_complete`, which runs on a fetcher thread — concurrently from different
//   workers, so it must be thread-safe — and must return quickly (hand the result off; do not call
//   stop() from it).
// - Redirects are never followed: a 3xx result carries the raw Location for the caller to resolve.
// - The body limits (max_body_bytes on the wire, max_decoded_bytes after decoding) cut the body:
//   the transfer ends there as kOk with body_truncated, a page (config/README.md). A request may
//   ask for less (FetchRequest::keep_first_bytes), cut the same way. The header limit and the
//   timeouts end a transfer with their own outcome. Bodies are kept only for accepted content types.
// - With the SSRF guard on, every connection's resolved address is checked (see address_guard.h).
// - stop() (also run by the destructor) aborts in-flight and queued requests, reports them as
//   kCancelled and returns once every worker has exited. A submit() after stop() is reported as
//   kCancelled at once, on the caller's thread.
// Decisions and defaults are explained in docs/fetcher.md.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "crawler/fetch/conditional_request.h"

namespace bloomcrawl {

struct FetchOptions {
  unsigned threads = 2;
  unsigned transfers_per_thread = 64;
  unsigned max_host_connections = 8;  // per worker thread
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds idle_timeout{30000};  // no body bytes for this long (1 s granularity)
  std::chrono::milliseconds total_timeout{60000};
  size_t max_body_bytes = 10 << 20;     // body bytes read from the wire (compressed); the rest is not
  size_t max_decoded_bytes = 50 << 20;  // bytes after Content-Encoding decoding (bomb guard)
  size_t max_header_bytes = 64 << 10;   // all response header lines, 1xx responses included
  std::string user_agent;
  bool http2 = true;        // HTTP/2 over TLS when the server offers it; HTTP/1.1 otherwise
  bool compression = true;  // Accept-Encoding: gzip, deflate, br (decoded by body_decoder.h)
  // Media types whose body is kept ("type/*" and "*/*" allowed). Others: headers and size only.
  std::vector<std::string> accepted_content_types{"text/html", "application/xhtml+xml"};
  bool ssrf_guard = true;
  std::vector<std::string> allowed_ranges;  // CIDRs exempt from the guard, e.g. "127.0.0.0/8"
  bool capture_headers = false;             // keep the request head and the response as received (WARC)
  // "HOST:PORT:ADDRESS" entries resolved without DNS, HOST "*" for any name (fetch_resolve.h).
  std::vector<std::string> resolve;
  // TLS (crawler/fetch/fetch_tls.h). Certificates are verified against the system's CAs; `ca_file`
  // (PEM) trusts more CAs beside them. tls_verify = false accepts any certificate (sites you own).
  std::string ca_file;
  bool tls_verify = true;
  // DNS (crawler/fetch/resolve_gate.h): one cache for all threads, entries kept this long; at most
  // this many names resolving at once, stuck resolver threads included.
  std::chrono::seconds dns_cache_ttl{300};
  unsigned max_resolves_in_flight = 32;
};

enum class FetchOutcome {
  kOk,  // a complete HTTP response was received (any status); see content_accepted
  kCancelled,
  kTimeout,
  kConnectFailed,
  kDnsFailed,
  kBlockedAddress,
  kHeaderTooLarge,
  kProtocolError,
  kConnectionReset,
  kTlsError,
  kOtherError,
  // A 304 answering a request that carried validators (conditional_request.h): no body. A 304 to
  // a request without validators stays kOk with status 304, for the caller to refuse.
  kNotModified,
};

// Stable lowercase name, e.g. "blocked_address", for logs and reports.
const char* fetch_outcome_name(FetchOutcome outcome);

struct FetchRequest {
  uint64_t id = 0;
  std::string url;
  // Comma-separated media types accepted for this request instead of the options' list
  // (e.g. "text/plain" for robots.txt). Empty: use FetchOptions::accepted_content_types.
  std::string accept_types_override;
  // The worker key: requests naming the same host share a worker. Empty: routed with every other
  // request that names none.
  std::string host;
  // Nonzero: only the first this many decoded body bytes are wanted (robots.txt, RFC 9309 2.5).
  // A longer body is cut there, the transfer ends as kOk with body_truncated, and this replaces
  // max_body_bytes for the request (a server announcing a huge Content-Length is no failure).
  size_t keep_first_bytes = 0;
  // Close the connection after this transfer instead of caching it: no queued request of the host
  // will need it (docs/fetcher.md, "Closing connections no one will reuse").
  bool close_connection = false;
  // A revisit's validators, sent as If-None-Match / If-Modified-Since (docs/recrawl.md).
  ConditionalValidators validators;
};

struct FetchResult {
  uint64_t id = 0;
  std::string url;
  FetchOutcome outcome = FetchOutcome::kOtherError;
  std::string error;              // empty for kOk; otherwise says what happened, naming the limit or address
  long status = 0;                // final HTTP status, 0 if none was received
  std::string content_type;       // raw header value
  std::string media_type;         // content_type's media type, lowercase ("" when it names none)
  bool content_accepted = false;  // body was kept (media type accepted)
  std::string body;               // decoded body; empty unless content_accepted
  // The body was cut: at keep_first_bytes, max_body_bytes (on the wire) or max_decoded_bytes; the
  // rest was not read. The result is kOk, a page like any other (config/README.md).
  bool body_truncated = false;
  int64_t content_length = -1;  // declared Content-Length, -1 if absent
  std::string location;         // raw Location header (unresolved)
  std::string retry_after;      // raw Retry-After header
  std::string x_robots_tag;     // all X-Robots-Tag headers joined with ", "
  std::string etag;             // raw ETag header, as received (a revisit sends it back)
  std::string last_modified;    // raw Last-Modified header, as received
  std::string remote_ip;        // address actually connected to
  uint64_t header_bytes = 0;
  uint64_t body_wire_bytes = 0;     // as received, before decoding
  uint64_t body_decoded_bytes = 0;  // after decoding (counted even when not kept)
  double total_ms = 0;
  std::string http_version;                          // "1.0", "1.1", "2", "3" or empty
  std::chrono::system_clock::time_point fetch_time;  // when the request was started
  // "sha1:" + base32 SHA-1 of the body as sent, de-chunked, content coding kept (payload_digest.h);
  // empty unless the whole body was received.
  std::string payload_digest;
  // Filled only with FetchOptions::capture_headers: the request head as sent, every response
  // head received (status line and fields, 1xx included), CRLF line endings, and the body of an
  // accepted type as received (content coding and chunk framing included; trailers are in it).
  // A body neither chunked nor content-coded is not kept twice: raw_body stays empty and the
  // received bytes are `body` (received_body()).
  std::string request_headers;
  std::string response_headers;
  std::string raw_body;
};

// The body as received: raw_body, or `body` when that holds the received bytes.
inline std::string_view received_body(const FetchResult& result) {
  return result.raw_body.empty() ? std::string_view(result.body) : std::string_view(result.raw_body);
}

class Fetcher {
 public:
  using CompletionFn = std::function<void(FetchResult&&)>;

  // Throws std::invalid_argument naming the bad option (zero threads, malformed CIDR, ...).
  Fetcher(FetchOptions options, CompletionFn on_complete);
  ~Fetcher();
  Fetcher(const Fetcher&) = delete;
  Fetcher& operator=(const Fetcher&) = delete;

  void submit(FetchRequest request);
  // Requests submitted and not yet reported (queued or transferring).
  size_t in_flight() const;
  void stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bloomcrawl
