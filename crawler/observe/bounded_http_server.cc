#include "crawler/observe/bounded_http_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <stdexcept>
#include <system_error>

namespace bloomcrawl {

using Clock = std::chrono::steady_clock;

struct BoundedHttpServer::Connection {
  enum class State { kReadingHead, kWriting, kDraining };
  int fd = -1;
  State state = State::kReadingHead;
  Clock::time_point accepted;
  Clock::time_point deadline;
  std::string in;   // the head so far (at most kMaxHeadBytes)
  std::string out;  // the response
  size_t sent = 0;
  size_t drained = 0;
};

namespace {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

std::runtime_error cannot_listen(const ListenAddress& a, const std::string& why) {
  return std::runtime_error("metrics: cannot listen on " + a.host + ":" + std::to_string(a.port) + ": " + why);
}

int bind_listener(const ListenAddress& address) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(address.port);
  if (int rc = getaddrinfo(address.host.c_str(), port.c_str(), &hints, &found); rc != 0)
    throw cannot_listen(address, gai_strerror(rc));
  std::string error = "no address";
  int fd = -1;
  for (addrinfo* ai = found; ai && fd < 0; ai = ai->ai_next) {
    fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      error = std::generic_category().message(errno);
      continue;
    }
    const int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(fd, 64) != 0) {
      error = std::generic_category().message(errno);
      close_fd(fd);
    }
  }
  freeaddrinfo(found);
  if (fd < 0) throw cannot_listen(address, error);
  return fd;
}

uint16_t bound_port(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return 0;
  if (ss.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
}

HttpResponse plain(int status, std::string text) {
  return HttpResponse{status, "text/plain; charset=utf-8", std::move(text) + "\n", {}};
}

// The answer the server gives itself, before any handler: a refusal, or nullopt to serve.
std::optional<HttpResponse> refusal(const HttpRequestHead& head) {
  if (head.method != "GET" && head.method != "HEAD") {
    HttpResponse r = plain(405, "only GET and HEAD are served");
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  const std::vector<std::string_view> lengths = head.values("content-length");
  const bool body = !head.values("transfer-encoding").empty() ||
                    std::any_of(lengths.begin(), lengths.end(), [](std::string_view v) { return v != "0"; });
  if (body) return plain(413, "request bodies are not accepted");
  if (head.version == "HTTP/1.1" && head.values("host").size() != 1) return plain(400, "one Host field is required");
  return std::nullopt;
}

}  // namespace

const char* http_reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Content Too Large";
    case 421: return "Misdirected Request";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    default: return "Unknown";
  }
}

BoundedHttpServer::BoundedHttpServer(const ListenAddress& address, Handler handler, HttpServerTimeouts timeouts)
    : handler_(std::move(handler)), timeouts_(timeouts), listen_fd_(bind_listener(address)) {
  port_ = bound_port(listen_fd_);
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) {
    const std::string why = std::generic_category().message(errno);
    close_fd(listen_fd_);
    throw cannot_listen(address, "eventfd: " + why);
  }
  thread_ = std::thread([this] { serve(); });
}

BoundedHttpServer::~BoundedHttpServer() {
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);  // an eventfd write of 1 cannot fail here
  thread_.join();
  close_fd(wake_fd_);
  close_fd(listen_fd_);
}

void BoundedHttpServer::serve() {
  std::vector<Connection> connections;
  connections.reserve(kMaxConnections);
  std::vector<pollfd> fds;
  for (;;) {
    fds.assign({{wake_fd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}});
    Clock::time_point next = Clock::now() + std::chrono::seconds(60);
    for (const Connection& c : connections) {
      fds.push_back({c.fd, short(c.state == Connection::State::kWriting ? POLLOUT : POLLIN), 0});
      next = std::min(next, c.deadline);
    }
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now()).count();
    if (::poll(fds.data(), fds.size(), int(std::max<int64_t>(wait, 0))) < 0 && errno != EINTR) break;
    if (fds[0].revents) break;  // stopping
    for (size_t i = 0; i < connections.size(); ++i) {
      Connection& c = connections[i];
      const short ev = fds[i + 2].revents;
      if (ev & (POLLERR | POLLNVAL)) {
        close_fd(c.fd);
      } else if (c.state == Connection::State::kWriting && (ev & (POLLOUT | POLLHUP))) {
        send_some(c);
      } else if (ev & (POLLIN | POLLHUP)) {
        on_readable(c);
      }
      if (c.fd >= 0 && Clock::now() >= c.deadline) close_fd(c.fd);
    }
    std::erase_if(connections, [](const Connection& c) { return c.fd < 0; });
    if (fds[1].revents & POLLIN) accept_all(connections);
    open_connections_ = connections.size();
  }
  for (Connection& c : connections) close_fd(c.fd);
  open_connections_ = 0;
}

void BoundedHttpServer::accept_all(std::vector<Connection>& connections) const {
  for (;;) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or an error of that one connection (ECONNABORTED, EMFILE): poll again
    if (connections.size() == kMaxConnections) {
      // The oldest connection gives up its slot: clients that hold sockets open without sending
      // cannot keep a scrape out for longer than they take to open new ones.
      auto oldest = std::min_element(connections.begin(), connections.end(),
                                     [](const Connection& a, const Connection& b) { return a.accepted < b.accepted; });
      close_fd(oldest->fd);
      connections.erase(oldest);
    }
    Connection c;
    c.fd = fd;
    c.accepted = Clock::now();
    c.deadline = c.accepted + timeouts_.head;
    connections.push_back(std::move(c));
  }
}

void BoundedHttpServer::on_readable(Connection& c) const {
  char buf[4096];
  if (c.state == Connection::State::kDraining) {
    const ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
    if (n <= 0 || (c.drained += size_t(n)) > kMaxDrainBytes) close_fd(c.fd);
    return;
  }
  // Never more than one byte past the bound, so the head's buffer stays within it.
  const size_t room = std::min(sizeof buf, kMaxHeadBytes + 1 - c.in.size());
  const ssize_t n = ::recv(c.fd, buf, room, 0);
  if (n <= 0) {
    if (n == 0 || (errno != EAGAIN && errno != EINTR)) close_fd(c.fd);
    return;
  }
  c.in.append(buf, size_t(n));
  HeadParse parsed = parse_request_head(c.in);
  switch (parsed.state) {
    case HeadParse::State::kIncomplete: return;
    case HeadParse::State::kRefused: respond(c, plain(parsed.status, "request head refused"), false); return;
    case HeadParse::State::kComplete: break;
  }
  const bool head_only = parsed.head.method == "HEAD";
  if (std::optional<HttpResponse> refused = refusal(parsed.head)) {
    respond(c, *refused, head_only);
    return;
  }
  HttpResponse response;
  try {
    response = handler_(parsed.head);
  } catch (const std::exception& e) {
    response = plain(500, e.what());
  }
  respond(c, response, head_only);
}

void BoundedHttpServer::respond(Connection& c, const HttpResponse& r, bool head_only) const {
  std::string& out = c.out;
  out = "HTTP/1.1 " + std::to_string(r.status) + " " + http_reason(r.status) + "\r\n";
  if (!r.content_type.empty()) out += "Content-Type: " + r.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(r.body.size()) + "\r\nConnection: close\r\n";
  for (const auto& [name, value] : r.headers) out += name + ": " + value + "\r\n";
  out += "\r\n";
  if (!head_only) out += r.body;
  c.in.clear();
  c.in.shrink_to_fit();
  c.state = Connection::State::kWriting;
  c.deadline = Clock::now() + timeouts_.response;
  send_some(c);
}

void BoundedHttpServer::send_some(Connection& c) const {
  while (c.sent < c.out.size()) {
    const ssize_t n = ::send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno != EAGAIN && errno != EINTR) close_fd(c.fd);
      return;
    }
    c.sent += size_t(n);
  }
  c.out.clear();
  c.out.shrink_to_fit();
  ::shutdown(c.fd, SHUT_WR);
  c.state = Connection::State::kDraining;
  c.deadline = Clock::now() + timeouts_.drain;
}

}  // namespace bloomcrawl
