// Fetcher over HTTPS against a local nginx with a certificate from a test CA: verification on by
// default (an unknown CA is each page's kTlsError), fetch.ca_file trusting the CA, tls_verify off
// accepting it with a warning, and HTTP/2 multiplexing many requests over one connection, as
// nginx's own access log shows.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "crawler/fetch/fetcher.h"
#include "tests/support/fetch_test_support.h"
#include "tests/support/tls_nginx.h"

namespace bloomcrawl {
namespace {

using testing::FetchCollector;
using testing::TlsNginx;

// The loopback options with timeouts long enough for TLS handshakes on a loaded machine (requests
// waiting on a host's first connection, PIPEWAIT, count that wait in their own connect time).
FetchOptions tls_options() {
  FetchOptions options = testing::loopback_fetch_options();
  options.connect_timeout = std::chrono::seconds(30);
  options.total_timeout = std::chrono::seconds(30);
  return options;
}

class FetcherTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string missing = TlsNginx::missing_tools(); !missing.empty()) GTEST_SKIP() << "missing " << missing;
  }

  // Fetches /p0.html .. /p(n-1).html all at once, one host, and returns the results by URL.
  static std::map<std::string, FetchResult> fetch_pages(const TlsNginx& server, FetchOptions options, int n) {
    FetchCollector collector;
    Fetcher fetcher(std::move(options), collector.callback());
    for (int i = 0; i < n; ++i) {
      fetcher.submit({uint64_t(i), server.url("/p" + std::to_string(i) + ".html"), "", "127.0.0.1"});
    }
    std::map<std::string, FetchResult> by_url;
    for (FetchResult& r : collector.wait_for(size_t(n))) by_url.emplace(r.url, std::move(r));
    return by_url;
  }
};

TEST_F(FetcherTlsTest, UnknownCaIsEachPagesTlsErrorNamingTheCertificate) {
  TlsNginx server;
  const auto results = fetch_pages(server, tls_options(), 3);
  ASSERT_EQ(results.size(), 3u);
  for (const auto& [url, r] : results) {
    EXPECT_EQ(r.outcome, FetchOutcome::kTlsError) << url << ": " << r.error;
    EXPECT_NE(r.error.find("certificate"), std::string::npos) << r.error;
    EXPECT_TRUE(r.body.empty());
  }
  server.stop();
  EXPECT_TRUE(server.access_log().empty()) << "no request may be sent over an unverified connection";
}

TEST_F(FetcherTlsTest, CaFileTrustsTheTestCa) {
  TlsNginx server;
  FetchOptions options = tls_options();
  options.ca_file = server.ca_file();
  const auto results = fetch_pages(server, options, 3);
  ASSERT_EQ(results.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const FetchResult& r = results.at(server.url("/p" + std::to_string(i) + ".html"));
    ASSERT_EQ(r.outcome, FetchOutcome::kOk) << r.error;
    EXPECT_EQ(r.status, 200);
    EXPECT_NE(r.body.find("page " + std::to_string(i)), std::string::npos);
    EXPECT_EQ(r.http_version, "2");
  }
}

TEST_F(FetcherTlsTest, UnreadableCaFileIsRejectedAtStart) {
  FetchOptions options = tls_options();
  options.ca_file = "/nonexistent/ca.pem";
  EXPECT_THROW(Fetcher(options, [](FetchResult&&) {}), std::invalid_argument);
}

TEST_F(FetcherTlsTest, TlsVerifyOffAcceptsAnyCertificateAndSaysSoAtStart) {
  std::ostringstream log;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(log);
  spdlog::default_logger()->sinks().push_back(sink);
  TlsNginx server;
  FetchOptions options = tls_options();
  options.tls_verify = false;
  const auto results = fetch_pages(server, options, 2);
  spdlog::default_logger()->sinks().pop_back();
  for (const auto& [url, r] : results) EXPECT_EQ(r.outcome, FetchOutcome::kOk) << url << ": " << r.error;
  EXPECT_NE(log.str().find("tls_verify is false: TLS certificates are NOT verified"), std::string::npos) << log.str();
}

TEST_F(FetcherTlsTest, Http2CarriesManyRequestsOverOneConnection) {
  constexpr int kPages = 40;
  TlsNginx server({.pages = kPages});
  FetchOptions options = tls_options();
  options.ca_file = server.ca_file();
  const auto results = fetch_pages(server, options, kPages);
  for (const auto& [url, r] : results) {
    EXPECT_EQ(r.outcome, FetchOutcome::kOk) << url << ": " << r.error;
    EXPECT_EQ(r.http_version, "2") << url;
  }
  server.stop();
  std::map<std::string, int> fetches;
  std::map<uint64_t, int> per_connection;
  for (const testing::TlsAccessEntry& e : server.access_log()) {
    EXPECT_EQ(e.protocol, "HTTP/2.0") << e.uri;
    ++fetches[e.uri];
    ++per_connection[e.connection];
  }
  EXPECT_EQ(fetches.size(), size_t(kPages));
  for (const auto& [uri, n] : fetches) EXPECT_EQ(n, 1) << uri;
  // PIPEWAIT makes the requests wait for the first connection and multiplex on it; the per-host
  // connection cap bounds the worst case.
  ASSERT_FALSE(per_connection.empty());
  EXPECT_LE(per_connection.size(), size_t(options.max_host_connections));
  for (const auto& [connection, n] : per_connection) EXPECT_GT(n, 1) << "connection " << connection;
}

TEST_F(FetcherTlsTest, Http11OverTlsWhenHttp2IsOff) {
  constexpr int kPages = 10;
  TlsNginx server({.pages = kPages});
  FetchOptions options = tls_options();
  options.ca_file = server.ca_file();
  options.http2 = false;
  options.max_host_connections = 1;
  const auto results = fetch_pages(server, options, kPages);
  for (const auto& [url, r] : results) {
    EXPECT_EQ(r.outcome, FetchOutcome::kOk) << url << ": " << r.error;
    EXPECT_EQ(r.http_version, "1.1") << url;
  }
  server.stop();
  const std::vector<testing::TlsAccessEntry> log = server.access_log();
  ASSERT_EQ(log.size(), size_t(kPages));
  std::set<uint64_t> connections;
  for (const testing::TlsAccessEntry& e : log) {
    EXPECT_EQ(e.protocol, "HTTP/1.1") << e.uri;
    connections.insert(e.connection);
  }
  EXPECT_EQ(connections.size(), 1u) << "keep-alive: one connection, its handshake paid once";
}

}  // namespace
}  // namespace bloomcrawl
