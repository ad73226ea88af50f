// BodyDecoder: undoes the HTTP codings of a response body as it streams in, so the fetcher can
// keep the bytes as received (for WARC) and still parse the decoded page. libcurl's own decoding
// is off because it hides the received bytes.
//
// Two layers, in the order they were applied by the server, undone in reverse:
// - the chunked transfer coding (RFC 9112 7.1), removed to give the payload (WARC's payload, whose
//   digest pages.jsonl and the WARC share), trailers skipped;
// - one content coding (gzip/x-gzip, deflate: zlib-wrapped or raw, br; identity), removed to give
//   the decoded body. Decoded bytes are handed out in pieces of at most 64 KiB, so the caller can
//   stop a compression bomb before it fills memory.
// Any other or stacked content coding, or malformed framing or compressed data, is an error.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace bloomcrawl {

class BodyDecoder {
 public:
  // Receives payload bytes (de-chunked, still content-coded); nothing to return.
  using PayloadSink = std::function<void(std::string_view)>;
  // Receives decoded bytes; returns false to stop decoding (the caller's limit).
  using DecodedSink = std::function<bool(std::string_view)>;

  // `content_encoding` as the header says it ("" or "identity": none). A coding this class cannot
  // undo is reported by the first feed().
  BodyDecoder(bool chunked, std::string_view content_encoding);
  ~BodyDecoder();
  BodyDecoder(const BodyDecoder&) = delete;
  BodyDecoder& operator=(const BodyDecoder&) = delete;

  // Decodes the next received bytes. Returns false when a sink stopped it or on an error (then
  // error() says what; empty when the decoded sink stopped it).
  bool feed(std::string_view received, const PayloadSink& payload, const DecodedSink& decoded);
  const std::string& error() const { return error_; }
  // Neither chunked nor content-coded: the decoded bytes are the received bytes.
  bool passes_through() const { return !chunked_ && !inflater_ && error_.empty(); }

 private:
  class Chunked;
  class Inflater;
  bool decode(std::string_view bytes, const DecodedSink& decoded);

  std::unique_ptr<Chunked> chunked_;    // null: not chunked
  std::unique_ptr<Inflater> inflater_;  // null: identity
  std::string error_;
  std::string scratch_;  // de-chunked bytes of the current feed()
};

}  // namespace bloomcrawl
