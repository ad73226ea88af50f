// HostileServer: a loopback HTTP/1.1 server that misbehaves on purpose, so tests can check that a
// client ends every exchange with a clear outcome, bounded memory and no hang. cpp-httplib cannot
// lie about lengths or reset connections, so this one speaks raw POSIX sockets.
//
// It binds 127.0.0.1 on an ephemeral port and serves each connection on its own thread; the path
// picks the misbehaviour (the constants below). A TLS handshake (an https:// URL) is answered in
// plaintext, as by a server that does not speak TLS on that port. Every response
// closes its connection. Streams that would never end on their own (drip, endless, bombs) stop
// when the client goes away or stop() is called; stop() (and the destructor) returns promptly.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace bloomcrawl::testing {

class HostileServer {
 public:
  // Paths and what they do.
  static constexpr const char* kSlowDrip = "/slow-drip";                     // 1 byte per second, forever
  static constexpr const char* kStall = "/stall";                            // head, then silence
  static constexpr const char* kEndless = "/endless";                        // HTML body that never ends
  static constexpr const char* kRedirectSelf = "/redirect-self";             // 302 to itself
  static constexpr const char* kRedirectA = "/redirect-a";                   // 302 to /redirect-b
  static constexpr const char* kRedirectB = "/redirect-b";                   // 302 to /redirect-a
  static constexpr const char* kGzipBomb = "/gzip-bomb";                     // ~1 MB gzip -> 1 GiB zeros
  static constexpr const char* kBrotliBomb = "/brotli-bomb";                 // brotli -> 1 GiB zeros
  static constexpr const char* kGzipPage = "/gzip-page";                     // an honest gzip page
  static constexpr const char* kHugeHeaders = "/huge-headers";               // 1 MB of 1 KB header lines
  static constexpr const char* kHugeHeaderLine = "/huge-header-line";        // one 1 MB header line
  static constexpr const char* kBrokenChunked = "/broken-chunked";           // invalid chunk size
  static constexpr const char* kResetMidBody = "/reset-mid-body";            // RST after part of the body
  static constexpr const char* kBinaryAsHtml = "/binary-as-html";            // random bytes, text/html
  static constexpr const char* kInvalidUtf8 = "/invalid-utf8";               // charset=utf-8, invalid bytes
  static constexpr const char* kDeepNesting = "/deep-nesting";               // 100000 nested <div>
  static constexpr const char* kLyingLengthLong = "/lying-length-long";      // claims more, closes
  static constexpr const char* kLyingLengthShort = "/lying-length-short";    // claims less, sends more
  static constexpr const char* kHugeContentLength = "/huge-content-length";  // declares 100 GB
  static constexpr const char* kNoResponse = "/no-response";                 // closes without a byte
  static constexpr const char* kNoResponseOnce = "/no-response-once";        // as kNoResponse, then a page
  static constexpr const char* kNotHttp = "/not-http";                       // answers with non-HTTP text

  static constexpr uint64_t kBombDecodedBytes = uint64_t{1} << 30;
  static constexpr size_t kDeepNestingLevels = 100000;

  HostileServer();  // throws std::runtime_error if the socket cannot be set up
  ~HostileServer();
  HostileServer(const HostileServer&) = delete;
  HostileServer& operator=(const HostileServer&) = delete;

  void stop();
  uint16_t port() const { return port_; }
  std::string url(std::string_view path) const;
  size_t connections() const { return connections_.load(); }
  // Requests whose head named `path` (the query cut off), counted as they arrive.
  size_t requests(std::string_view path) const;
  // The exact body served for the fixed-content paths (binary, invalid UTF-8, deep nesting, gzip
  // page), so a test can compare what the client kept.
  static const std::string& body_of(std::string_view path);
  // False when the brotli encoder library is not available at run time (the brotli bomb then
  // answers 501 and its test skips).
  static bool brotli_available();

 private:
  void accept_loop();
  void serve(int fd);
  bool stopping() const;
  size_t count_request(const std::string& path);  // this request's number for its path, from 1

  int listen_fd_ = -1;
  int stop_pipe_[2] = {-1, -1};  // readable once stop() ran: every wait polls it
  uint16_t port_ = 0;
  std::atomic<size_t> connections_{0};
  mutable std::mutex requests_mutex_;
  std::map<std::string, size_t, std::less<>> requests_;  // path -> requests
  std::thread accept_thread_;
  std::mutex threads_mutex_;
  std::vector<std::thread> connection_threads_;
};

}  // namespace bloomcrawl::testing
