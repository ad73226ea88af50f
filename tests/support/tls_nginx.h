// TlsNginx: the system's nginx (/usr/sbin/nginx) serving a small static site over HTTPS on a free
// loopback port, with a certificate from a test CA that openssl makes for it in a temporary
// directory. HTTP/2 is offered by ALPN (unless turned off). Everything nginx writes stays in that
// directory; nginx runs in the foreground as the test's child and is stopped by stop() or the
// destructor.
//
// The access log records, per request, the protocol ($server_protocol), the connection's serial
// number ($connection) and the request's number on it ($connection_requests): what a test needs to
// tell whether HTTP/2 was used and how many requests shared a connection. Read it after stop(),
// when nginx has written every line.
//
// The site: /index.html linking to /p0.html ... /p(N-1).html; page i links to pages i+1 and i+2
// (relative links) and says "page i".
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"

namespace bloomcrawl::testing {

struct TlsNginxOptions {
  int pages = 20;
  bool http2 = true;
};

struct TlsAccessEntry {
  std::string protocol;  // "HTTP/2.0", "HTTP/1.1"
  uint64_t connection = 0;
  uint64_t connection_request = 0;
  std::string uri;
  int status = 0;
  // When nginx had read the request and when it logged its response, in seconds (Unix, ms precision):
  // a connection was open at least from its first request's start to its last request's end.
  double started = 0;
  double ended = 0;
};

class TlsNginx {
 public:
  // Empty when nginx and openssl are there; otherwise what is missing (the test is skipped).
  static std::string missing_tools();

  explicit TlsNginx(TlsNginxOptions options = {});  // throws std::runtime_error if it cannot start
  ~TlsNginx();
  TlsNginx(const TlsNginx&) = delete;
  TlsNginx& operator=(const TlsNginx&) = delete;

  // "https://127.0.0.1:PORT" + path; the certificate names 127.0.0.1 and localhost.
  std::string url(const std::string& path) const;
  int port() const { return port_; }
  // The test CA's certificate (PEM), to trust with fetch.ca_file.
  std::filesystem::path ca_file() const { return dir_.path() / "ca.pem"; }
  void stop();
  std::vector<TlsAccessEntry> access_log() const;

 private:
  void make_certificates() const;
  void write_site(int pages) const;
  void write_config(bool http2) const;
  bool start_on_free_port(bool http2);

  TempDir dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace bloomcrawl::testing
