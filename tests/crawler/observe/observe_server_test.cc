// ObserveServer on a real socket, as a hostile client would use it: methods other than GET and
// HEAD, request bodies (announced, chunked, huge), oversized heads, foreign Host headers and
// clients that connect and send nothing are each refused, the process's memory stays where it was,
// and /metrics keeps answering. A crawled server's non-UTF-8 text reaches /status.json as UTF-8.
#include "crawler/observe/observe_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "crawler/pipeline/recent_errors.h"

namespace bloomcrawl {
namespace {

int connect_to(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  // A safety net against a server that never answers, not a synchronisation: every read below
  // waits for the server's answer or its close.
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

void send_all(int fd, const std::string& bytes) {
  for (size_t sent = 0; sent < bytes.size();) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;  // the server closed: what it answered is still readable
    sent += size_t(n);
  }
}

std::string read_until_close(int fd) {
  std::string out;
  char buf[65536];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) out.append(buf, size_t(n));
  return out;
}

// Sends `request`, then reads the answer until the server closes.
std::string exchange(uint16_t port, const std::string& request) {
  const int fd = connect_to(port);
  send_all(fd, request);
  std::string answer = read_until_close(fd);
  ::close(fd);
  return answer;
}

int status_of(const std::string& response) {
  return response.starts_with("HTTP/1.1 ") ? std::stoi(response.substr(9, 3)) : 0;
}

std::string body_of(const std::string& response) {
  const size_t end = response.find("\r\n\r\n");
  return end == std::string::npos ? "" : response.substr(end + 4);
}

uint64_t resident_kib() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("VmRSS:")) return std::stoull(line.substr(6));
  }
  return 0;
}

nlohmann::json live_report() { return {{"fetches", {{"pages_fetched", 3}}}, {"frontier", {{"queued", 1}}}}; }

class ObserveServerTest : public ::testing::Test {
 protected:
  ObserveServer server_{ListenAddress{"127.0.0.1", 0}, live_report};
  std::string get(const std::string& path, const std::string& host = "127.0.0.1") {
    return exchange(server_.port(),
                    "GET " + path + " HTTP/1.1\r\nHost: " + host + ":" + std::to_string(server_.port()) + "\r\n\r\n");
  }
};

TEST_F(ObserveServerTest, ServesGetAndHead) {
  const std::string metrics = get("/metrics");
  EXPECT_EQ(status_of(metrics), 200) << metrics;
  EXPECT_NE(body_of(metrics).find("bloomcrawl_"), std::string::npos);
  EXPECT_EQ(status_of(get("/status.json")), 200);
  EXPECT_EQ(status_of(get("/")), 200);
  EXPECT_EQ(status_of(get("/nothing")), 404);
  const std::string head = exchange(server_.port(), "HEAD /metrics HTTP/1.0\r\n\r\n");
  EXPECT_EQ(status_of(head), 200);
  EXPECT_EQ(body_of(head), "");
  EXPECT_NE(head.find("Content-Length: " + std::to_string(body_of(metrics).size())), std::string::npos);
}

TEST_F(ObserveServerTest, RefusesOtherMethods) {
  for (const char* method : {"POST", "PUT", "DELETE", "OPTIONS", "PATCH"}) {
    const std::string r =
        exchange(server_.port(), std::string(method) + " /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    EXPECT_EQ(status_of(r), 405) << method;
    EXPECT_NE(r.find("Allow: GET, HEAD"), std::string::npos);
  }
}

TEST_F(ObserveServerTest, RefusesBodiesWithoutReadingThem) {
  const std::string body(4 << 20, 'x');  // allocated before the baseline: the client's, not the server's
  const uint64_t before = resident_kib();
  for (const char* method : {"GET", "POST", "PUT"}) {
    // 200 MB announced: the answer comes after the head; the 4 MiB sent after it are not kept.
    const int fd = connect_to(server_.port());
    send_all(fd, std::string(method) + " /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 200000000\r\n\r\n");
    char first[16] = {};
    ASSERT_GT(::recv(fd, first, sizeof first - 1, 0), 0);
    EXPECT_EQ(status_of(first), std::string(method) == "GET" ? 413 : 405) << method;
    send_all(fd, body);
    ::close(fd);
  }
  const std::string get_with_body =
      exchange(server_.port(), "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello");
  EXPECT_EQ(status_of(get_with_body), 413);
  const std::string chunked =
      exchange(server_.port(),
               "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
  EXPECT_EQ(status_of(chunked), 413);
  EXPECT_LT(resident_kib(), before + 4096);
  EXPECT_EQ(status_of(get("/metrics")), 200);
}

TEST_F(ObserveServerTest, RefusesOversizedHeads) {
  std::string many = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (int i = 0; i < 10000; ++i) many += "X-" + std::to_string(i) + ": y\r\n";
  many += "\r\n";
  const std::string long_field = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX: " + std::string(16 << 20, 'a');
  const std::string long_target = "GET /" + std::string(100000, 'a') + " HTTP/1.1\r\n\r\n";
  const uint64_t before = resident_kib();  // the client's buffers are in it already
  EXPECT_EQ(status_of(exchange(server_.port(), many)), 431);
  EXPECT_EQ(status_of(exchange(server_.port(), long_field)), 431);
  EXPECT_EQ(status_of(exchange(server_.port(), long_target)), 431);
  EXPECT_LT(resident_kib(), before + 4096);
  EXPECT_EQ(status_of(get("/metrics")), 200);
}

TEST_F(ObserveServerTest, RefusesForeignHostHeaders) {
  EXPECT_EQ(status_of(get("/status.json", "attacker.example")), 421);
  EXPECT_EQ(status_of(get("/metrics", "127.0.0.2")), 421);
  EXPECT_EQ(status_of(exchange(server_.port(), "GET /metrics HTTP/1.1\r\n\r\n")), 400);  // HTTP/1.1 needs one
  EXPECT_EQ(status_of(get("/status.json", "localhost")), 200);
}

TEST(ObserveServerHostsTest, AnswersConfiguredNames) {
  ObserveServer server(ListenAddress{"127.0.0.1", 0}, live_report, {"crawler.internal"});
  EXPECT_EQ(status_of(exchange(server.port(), "GET /metrics HTTP/1.1\r\nHost: crawler.internal\r\n\r\n")), 200);
  EXPECT_EQ(status_of(exchange(server.port(), "GET /metrics HTTP/1.1\r\nHost: other.internal\r\n\r\n")), 421);
}

TEST_F(ObserveServerTest, SilentClientsCannotKeepMetricsOut) {
  // More silent connections than the server has slots, plus one that stops halfway through its
  // head: /metrics answers at once all the same, each time.
  std::vector<int> silent;
  for (size_t i = 0; i < BoundedHttpServer::kMaxConnections + 8; ++i) silent.push_back(connect_to(server_.port()));
  const int half = connect_to(server_.port());
  send_all(half, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  for (int i = 0; i < 3; ++i) EXPECT_EQ(status_of(get("/metrics")), 200);
  for (int fd : silent) ::close(fd);
  ::close(half);
}

TEST(BoundedHttpServerTest, ClosesAConnectionWhoseHeadIsTooSlow) {
  HttpServerTimeouts timeouts;
  timeouts.head = std::chrono::milliseconds(50);
  BoundedHttpServer server(
      ListenAddress{"127.0.0.1", 0}, [](const HttpRequestHead&) { return HttpResponse{}; }, timeouts);
  const int fd = connect_to(server.port());
  send_all(fd, "GET / HTTP/1.1\r\n");
  EXPECT_EQ(read_until_close(fd), "");  // closed by the server at its deadline, unanswered
  ::close(fd);
}

TEST(ObserveServerUtf8Test, NonUtf8ServerTextReachesStatusJsonAsUtf8) {
  RecentErrors errors;
  errors.add("http://a.test/\xff", "unsupported content encoding: \xe9t\xe9\xc3");
  ObserveServer server(ListenAddress{"127.0.0.1", 0}, [&errors] {
    nlohmann::json r = live_report();
    r["recent_errors"] = errors.to_json();
    return r;
  });
  const std::string r = exchange(server.port(), "GET /status.json HTTP/1.0\r\n\r\n");
  ASSERT_EQ(status_of(r), 200) << r;
  const nlohmann::json doc = nlohmann::json::parse(body_of(r));
  const std::string text = doc.dump();  // throws on anything not UTF-8
  EXPECT_NE(text.find("\xef\xbf\xbd"), std::string::npos) << text;
  EXPECT_NE(text.find("unsupported content encoding"), std::string::npos) << text;
}

}  // namespace
}  // namespace bloomcrawl
