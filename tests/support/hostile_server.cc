#include "tests/support/hostile_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <system_error>

#include "tests/support/hostile_server_compress.h"

namespace bloomcrawl::testing {
namespace {

constexpr size_t kMaxRequestBytes = 64 << 10;
constexpr int kRequestTimeoutMs = 10000;  // a client that never sends a request is dropped
constexpr size_t kBombChunk = 1 << 20;

// One accepted connection; every wait also watches the server's stop pipe.
class Connection {
 public:
  Connection(int fd, int stop_fd) : fd_(fd), stop_fd_(stop_fd) {}
  ~Connection() {
    if (fd_ >= 0) close(fd_);
  }

  // Waits until the socket has `events` (true) or the server stops / `timeout_ms` passes (false).
  bool wait(short events, int timeout_ms) {
    pollfd fds[2] = {{fd_, events, 0}, {stop_fd_, POLLIN, 0}};
    for (;;) {
      const int ready = poll(fds, 2, timeout_ms);
      if (ready < 0 && errno == EINTR) continue;
      return ready > 0 && fds[1].revents == 0 && fds[0].revents != 0;
    }
  }

  // Sleeps `ms` unless the server stops first; false if it stopped.
  bool pause(int ms) {
    pollfd stop = {stop_fd_, POLLIN, 0};
    return poll(&stop, 1, ms) == 0;
  }

  // False once the client has gone or the server stops.
  bool send(std::string_view data) {
    while (!data.empty()) {
      if (!wait(POLLOUT, -1)) return false;
      const ssize_t sent = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (sent < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (sent <= 0) return false;
      data.remove_prefix(static_cast<size_t>(sent));
    }
    return true;
  }

  // True if the client opened with a TLS handshake record (it was given an https:// URL).
  bool opens_with_tls() {
    unsigned char first = 0;
    return wait(POLLIN, kRequestTimeoutMs) && recv(fd_, &first, 1, MSG_PEEK) == 1 && first == 0x16;
  }

  // The path of the request line, "" if no complete request head arrived.
  std::string read_request_path() {
    std::string request;
    while (request.find("\r\n\r\n") == std::string::npos && request.size() < kMaxRequestBytes) {
      if (!wait(POLLIN, kRequestTimeoutMs)) return "";
      char buffer[4096];
      const ssize_t got = recv(fd_, buffer, sizeof buffer, 0);
      if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (got <= 0) return "";
      request.append(buffer, static_cast<size_t>(got));
    }
    const size_t start = request.find(' ');
    const size_t end = request.find_first_of(" ?", start + 1);
    if (start == std::string::npos || end == std::string::npos) return "";
    return request.substr(start + 1, end - start - 1);
  }

  // Holds the connection open until the client closes it or the server stops.
  void wait_for_client_close() {
    while (wait(POLLIN, -1)) {
      char buffer[4096];
      const ssize_t got = recv(fd_, buffer, sizeof buffer, 0);
      if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) return;
    }
  }

  // Closes with SO_LINGER 0, which sends a TCP RST instead of an orderly FIN.
  void reset() {
    linger option{1, 0};
    setsockopt(fd_, SOL_SOCKET, SO_LINGER, &option, sizeof option);
    close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
  int stop_fd_;
};

std::string head(std::string_view status, std::string_view fields) {
  return "HTTP/1.1 " + std::string(status) + "\r\n" + std::string(fields) + "Connection: close\r\n\r\n";
}

std::string length_field(uint64_t length) { return "Content-Length: " + std::to_string(length) + "\r\n"; }

std::string binary_body() {
  std::string body(4096, '\0');
  uint32_t state = 12345;  // fixed LCG: the same "random" bytes every run
  for (char& c : body) {
    state = state * 1103515245u + 12345u;
    c = static_cast<char>(state >> 24);
  }
  return body;
}

std::string invalid_utf8_body() {
  return "<html><body><p>overlong \xC0\xAF, surrogate \xED\xA0\x80, stray \xFF\xFE, truncated \xE2\x82"
         "</p><a href=\"/\xC3\x28\">bad link</a></body></html>";
}

std::string deep_nesting_body() {
  std::string body = "<html><body>";
  for (size_t i = 0; i < HostileServer::kDeepNestingLevels; ++i) body += "<div>";
  body += "<a href=\"/deep\">deep</a>";
  for (size_t i = 0; i < HostileServer::kDeepNestingLevels; ++i) body += "</div>";
  return body + "</body></html>";
}

std::string gzip_page_body() {
  std::string body = "<html><head><title>gzip</title></head><body>";
  for (int i = 0; i < 200; ++i) body += "<p>compressed paragraph " + std::to_string(i) + "</p>";
  return body + "</body></html>";
}

void serve_fixed(Connection& connection, std::string_view content_type, const std::string& body) {
  connection.send(head("200 OK", "Content-Type: " + std::string(content_type) + "\r\n" + length_field(body.size())) +
                  body);
}

void serve_redirect(Connection& connection, std::string_view location) {
  connection.send(head("302 Found", "Location: " + std::string(location) + "\r\n" + length_field(0)));
}

// A body of zeros declared as text/html, compressed as it streams: a decompression bomb.
void serve_bomb(Connection& connection, std::unique_ptr<StreamEncoder> encoder, std::string_view coding) {
  if (encoder == nullptr) {
    connection.send(head("501 Not Implemented", length_field(0)));
    return;
  }
  if (!connection.send(
          head("200 OK", "Content-Type: text/html\r\nContent-Encoding: " + std::string(coding) + "\r\n"))) {
    return;
  }
  const std::string zeros(kBombChunk, '\0');
  for (uint64_t sent = 0; sent < HostileServer::kBombDecodedBytes; sent += kBombChunk) {
    const bool last = sent + kBombChunk >= HostileServer::kBombDecodedBytes;
    if (!connection.send(encoder->encode(zeros, last))) return;
  }
}

void serve_slow_drip(Connection& connection) {
  if (!connection.send(head("200 OK", "Content-Type: text/html\r\n" + length_field(1000000)))) return;
  while (connection.send("<") && connection.pause(1000)) {
  }
}

void serve_endless(Connection& connection) {
  std::string chunk;
  while (chunk.size() < (64 << 10)) chunk += "<p>endless</p>";
  if (!connection.send(head("200 OK", "Content-Type: text/html\r\n"))) return;
  while (connection.send(chunk)) {
  }
}

void serve_huge_headers(Connection& connection, bool one_line) {
  std::string fields;
  if (one_line) {
    fields = "X-Huge: " + std::string(1 << 20, 'h') + "\r\n";
  } else {
    for (int i = 0; i < 1024; ++i) fields += "X-Filler-" + std::to_string(i) + ": " + std::string(1000, 'f') + "\r\n";
  }
  connection.send(head("200 OK", fields + "Content-Type: text/html\r\n" + length_field(2)) + "ok");
}

void serve_broken_chunked(Connection& connection) {
  connection.send(head("200 OK", "Content-Type: text/html\r\nTransfer-Encoding: chunked\r\n") +
                  "6\r\n<html>\r\nzz-not-hex\r\nbroken\r\n");
}

void serve_reset_mid_body(Connection& connection) {
  if (connection.send(head("200 OK", "Content-Type: text/html\r\n" + length_field(100000)) + "<html><body>" +
                      std::string(1000, 'r'))) {
    connection.reset();
  }
}

void serve_huge_content_length(Connection& connection) {
  if (connection.send(head("200 OK", "Content-Type: text/html\r\n" + length_field(100000000000ull)) + "<html>")) {
    connection.wait_for_client_close();
  }
}

void serve_stall(Connection& connection) {
  if (connection.send(head("200 OK", "Content-Type: text/html\r\n" + length_field(100)))) {
    connection.wait_for_client_close();
  }
}

void serve_path(Connection& connection, const std::string& path) {
  using S = HostileServer;
  if (path == S::kSlowDrip) return serve_slow_drip(connection);
  if (path == S::kStall) return serve_stall(connection);
  if (path == S::kEndless) return serve_endless(connection);
  if (path == S::kRedirectSelf) return serve_redirect(connection, S::kRedirectSelf);
  if (path == S::kRedirectA) return serve_redirect(connection, S::kRedirectB);
  if (path == S::kRedirectB) return serve_redirect(connection, S::kRedirectA);
  if (path == S::kGzipBomb) return serve_bomb(connection, make_gzip_encoder(), "gzip");
  if (path == S::kBrotliBomb) return serve_bomb(connection, make_brotli_encoder(), "br");
  if (path == S::kHugeHeaders) return serve_huge_headers(connection, false);
  if (path == S::kHugeHeaderLine) return serve_huge_headers(connection, true);
  if (path == S::kBrokenChunked) return serve_broken_chunked(connection);
  if (path == S::kResetMidBody) return serve_reset_mid_body(connection);
  if (path == S::kHugeContentLength) return serve_huge_content_length(connection);
  if (path == S::kBinaryAsHtml) return serve_fixed(connection, "text/html", S::body_of(path));
  if (path == S::kInvalidUtf8) return serve_fixed(connection, "text/html; charset=utf-8", S::body_of(path));
  if (path == S::kDeepNesting) return serve_fixed(connection, "text/html", S::body_of(path));
  if (path == S::kNoResponseOnce) return serve_fixed(connection, "text/html", S::body_of(path));
  if (path == S::kGzipPage) {
    const std::string compressed = make_gzip_encoder()->encode(S::body_of(path), true);
    connection.send(
        head("200 OK", "Content-Type: text/html\r\nContent-Encoding: gzip\r\n" + length_field(compressed.size())) +
        compressed);
    return;
  }
  if (path == S::kLyingLengthLong) {
    connection.send(head("200 OK", "Content-Type: text/html\r\n" + length_field(5000)) + std::string(100, 'l'));
    return;
  }
  if (path == S::kLyingLengthShort) {
    connection.send(head("200 OK", "Content-Type: text/html\r\n" + length_field(10)) + std::string(1000, 's'));
    return;
  }
  if (path == S::kNoResponse) return;
  if (path == S::kNotHttp) {
    connection.send("SSH-2.0-OpenSSH_9.2\r\nthis is not HTTP\r\n");
    return;
  }
  connection.send(head("404 Not Found", length_field(0)));
}

}  // namespace

const std::string& HostileServer::body_of(std::string_view path) {
  static const std::string binary = binary_body();
  static const std::string invalid_utf8 = invalid_utf8_body();
  static const std::string deep = deep_nesting_body();
  static const std::string gzip_page = gzip_page_body();
  static const std::string answered = "<html><body>answered the second time</body></html>";
  static const std::string none;
  if (path == kBinaryAsHtml) return binary;
  if (path == kInvalidUtf8) return invalid_utf8;
  if (path == kDeepNesting) return deep;
  if (path == kGzipPage) return gzip_page;
  if (path == kNoResponseOnce) return answered;
  return none;
}

bool HostileServer::brotli_available() { return make_brotli_encoder() != nullptr; }

HostileServer::HostileServer() {
  if (pipe2(stop_pipe_, O_CLOEXEC) != 0) throw std::runtime_error("hostile server: pipe failed");
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (listen_fd_ < 0 || bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      listen(listen_fd_, 128) != 0 || getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    const std::string reason = std::generic_category().message(errno);
    stop();
    throw std::runtime_error("hostile server: cannot listen on 127.0.0.1: " + reason);
  }
  port_ = ntohs(address.sin_port);
  accept_thread_ = std::thread([this] { accept_loop(); });
}

HostileServer::~HostileServer() { stop(); }

std::string HostileServer::url(std::string_view path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
}

bool HostileServer::stopping() const {
  pollfd stop = {stop_pipe_[0], POLLIN, 0};
  return poll(&stop, 1, 0) > 0;
}

void HostileServer::stop() {
  if (stop_pipe_[1] >= 0) {
    const char byte = 's';
    [[maybe_unused]] const ssize_t written = write(stop_pipe_[1], &byte, 1);  // never read: stays readable
  }
  if (accept_thread_.joinable()) accept_thread_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(threads_mutex_);
    threads.swap(connection_threads_);
  }
  for (std::thread& thread : threads) thread.join();
  for (int* fd : {&listen_fd_, &stop_pipe_[0], &stop_pipe_[1]}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

void HostileServer::accept_loop() {
  pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
  while (!stopping()) {
    if (poll(fds, 2, -1) <= 0 || fds[1].revents != 0) continue;  // re-checks stopping()
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) continue;
    ++connections_;
    std::lock_guard lock(threads_mutex_);
    connection_threads_.emplace_back([this, fd] { serve(fd); });
  }
}

void HostileServer::serve(int fd) {
  Connection connection(fd, stop_pipe_[0]);
  if (connection.opens_with_tls()) {
    connection.send(head("400 Bad Request", length_field(0)));  // a plaintext-only server's answer
    return;
  }
  const std::string path = connection.read_request_path();
  if (path.empty()) return;
  if (count_request(path) == 1 && path == kNoResponseOnce) return;  // closed without a byte
  serve_path(connection, path);
}

size_t HostileServer::count_request(const std::string& path) {
  std::lock_guard lock(requests_mutex_);
  return ++requests_[path];
}

size_t HostileServer::requests(std::string_view path) const {
  std::lock_guard lock(requests_mutex_);
  const auto found = requests_.find(path);
  return found == requests_.end() ? 0 : found->second;
}

}  // namespace bloomcrawl::testing
