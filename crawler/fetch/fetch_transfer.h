// FetchTransfer: one reusable libcurl easy handle plus the state of the request it is running,
// and the callbacks that enforce the fetcher's limits while bytes arrive.
//
// A worker owns several of these. start() arms the handle for a request (connection-independent
// options are set once, so reusing the handle keeps libcurl's caches warm); after libcurl reports
// the transfer done, finish() turns it into a FetchResult, or cancel() when the fetcher stops.
// Not thread-safe: used only by its worker thread.
#pragma once

#include <curl/curl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crawler/fetch/address_guard.h"
#include "crawler/fetch/body_decoder.h"
#include "crawler/fetch/fetch_resolve.h"
#include "crawler/fetch/fetcher.h"
#include "crawler/fetch/payload_digest.h"

namespace bloomcrawl {

class FetchTransfer {
 public:
  // `options`, `accepted` and `guard` (null: no SSRF guard) must outlive the transfer.
  FetchTransfer(const FetchOptions& options, const std::vector<std::string>& accepted, const AddressGuard* guard);
  ~FetchTransfer();
  FetchTransfer(const FetchTransfer&) = delete;
  FetchTransfer& operator=(const FetchTransfer&) = delete;

  CURL* easy() const { return easy_; }
  void start(FetchRequest request);
  FetchResult finish(CURLcode code);
  FetchResult cancel();

 private:
  // Why the transfer was aborted from a callback, so finish() reports it rather than libcurl's
  // generic write error.
  enum class Abort {
    kNone,
    kHeaderTooLarge,
    kNotAccepted,
    kTruncated,  // at a body limit or keep_first_bytes: a complete answer, body_truncated
    kBadEncoding
  };

  static size_t on_header(char* data, size_t size, size_t count, void* self);
  static size_t on_write(char* data, size_t size, size_t count, void* self);
  static curl_socket_t on_open_socket(void* self, curlsocktype purpose, curl_sockaddr* address);
  static int on_debug(CURL* easy, curl_infotype type, char* data, size_t size, void* self);

  // Each returns false to abort the transfer (abort_ says why).
  bool header_line(std::string_view line);
  bool head_complete();
  bool body_bytes(std::string_view bytes);
  bool decoded_bytes(std::string_view bytes);
  void truncate();  // the body ends here: the rest is not read
  void header_field(std::string_view name, std::string_view value);
  const std::vector<std::string>& effective_accepted() const;
  void fill_transfer_info(FetchResult* result);

  const FetchOptions& options_;
  const std::vector<std::string>& default_accepted_;
  const AddressGuard* guard_;
  CURL* easy_ = nullptr;
  char error_buffer_[CURL_ERROR_SIZE] = {};
  curl_slist* accept_header_ = nullptr;  // Accept, and a revisit's conditional headers
  ResolveOverrides resolve_;

  // Per request; reset by start().
  FetchResult result_;
  std::vector<std::string> override_accepted_;
  size_t keep_first_bytes_ = 0;  // FetchRequest::keep_first_bytes
  bool conditional_ = false;     // the request sent a validator: a 304 is kNotModified
  Abort abort_ = Abort::kNone;
  uint64_t wire_body_bytes_ = 0;  // body bytes as received, counted against max_body_bytes
  std::string abort_error_;
  std::string blocked_;           // the refused connect, if the guard refused one
  bool in_body_ = false;          // the final response's head is complete
  std::string content_encoding_;  // of the response head being read
  bool chunked_ = false;
  std::optional<BodyDecoder> decoder_;  // from the final head on
  PayloadDigest digest_;
};

}  // namespace bloomcrawl
