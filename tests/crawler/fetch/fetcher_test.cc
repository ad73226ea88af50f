// Fetcher against a loopback cpp-httplib server: normal pages, decoding, keep-alive, redirects not
// followed, content-type gating, timeouts, cancellation on stop().
#include "crawler/fetch/fetcher.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>

#include "tests/support/fetch_loopback_server.h"
#include "tests/support/fetch_test_support.h"
#include "tests/support/loopback_port.h"

namespace bloomcrawl {
namespace {

using testing::FetchCollector;

using LoopbackServer = testing::LoopbackHttpServer;

FetchOptions loopback_options() {
  FetchOptions options = testing::loopback_fetch_options();
  options.user_agent = "bloomcrawl-test/1.0";
  return options;
}

const std::string kPage = "<html><head><title>t</title></head><body><a href=\"/next\">n</a></body></html>";

// Serves kPage at `path` and starts the server.
void serve_page(LoopbackServer& server, const std::string& path = "/") {
  server.server().Get(
      path, [](const httplib::Request&, httplib::Response& response) { response.set_content(kPage, "text/html"); });
  server.start();
}

// Serves "<html>N</html>" at /p/N and starts the server.
void serve_numbered_pages(LoopbackServer& server) {
  server.server().Get(R"(/p/(\d+))", [](const httplib::Request& request, httplib::Response& response) {
    response.set_content("<html>" + request.matches[1].str() + "</html>", "text/html");
  });
  server.start();
}

// Submits /p/0 ... /p/(count - 1), each with its number as id, and checks that every one came
// back whole, once, within `bound`.
void fetch_numbered_pages(LoopbackServer& server, const FetchOptions& options, int count,
                          std::chrono::seconds bound = std::chrono::seconds(60)) {
  FetchCollector collector;
  Fetcher fetcher(options, collector.callback());
  for (int i = 0; i < count; ++i) fetcher.submit({static_cast<uint64_t>(i), server.url("/p/" + std::to_string(i)), ""});
  std::set<uint64_t> ids;
  for (const FetchResult& result : collector.wait_for(size_t(count), bound)) {
    ASSERT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
    EXPECT_EQ(result.body, "<html>" + std::to_string(result.id) + "</html>");
    ids.insert(result.id);
  }
  EXPECT_EQ(ids.size(), size_t(count));
}

TEST(FetcherTest, FetchesAPageWithHeadersAndRemoteIp) {
  LoopbackServer server;
  server.server().Get("/page", [](const httplib::Request& request, httplib::Response& response) {
    response.set_header("X-Robots-Tag", "noarchive");
    response.set_header("X-Seen-Agent", request.get_header_value("User-Agent"));
    response.set_content(kPage, "text/html; charset=utf-8");
  });
  server.start();
  FetchCollector collector;
  Fetcher fetcher(loopback_options(), collector.callback());
  fetcher.submit({7, server.url("/page"), ""});
  const FetchResult result = collector.wait_one();
  EXPECT_EQ(result.id, 7u);
  EXPECT_EQ(result.url, server.url("/page"));
  EXPECT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
  EXPECT_EQ(result.status, 200);
  EXPECT_EQ(result.content_type, "text/html; charset=utf-8");
  EXPECT_TRUE(result.content_accepted);
  EXPECT_EQ(result.body, kPage);
  EXPECT_EQ(result.body_decoded_bytes, kPage.size());
  EXPECT_EQ(result.x_robots_tag, "noarchive");
  EXPECT_EQ(result.remote_ip, "127.0.0.1");
  EXPECT_EQ(result.http_version, "1.1");
  EXPECT_GT(result.header_bytes, 0u);
  EXPECT_TRUE(result.request_headers.empty());  // capture_headers is off
}

TEST(FetcherTest, GuardBlocksLoopbackWithoutAllowList) {
  LoopbackServer server;
  std::atomic<int> hits{0};
  server.server().Get("/page", [&](const httplib::Request&, httplib::Response& response) {
    ++hits;
    response.set_content(kPage, "text/html");
  });
  server.start();
  FetchOptions options = loopback_options();
  options.allowed_ranges.clear();
  FetchCollector collector;
  Fetcher fetcher(options, collector.callback());
  fetcher.submit({1, server.url("/page"), ""});
  const FetchResult result = collector.wait_one();
  EXPECT_EQ(result.outcome, FetchOutcome::kBlockedAddress) << result.error;
  EXPECT_NE(result.error.find("127.0.0.1"), std::string::npos) << result.error;
  EXPECT_NE(result.error.find("loopback"), std::string::npos) << result.error;
  EXPECT_EQ(hits.load(), 0);
}

TEST(FetcherTest, NameResolvingToLoopbackIsBlockedAtConnect) {
  // "localhost" passes any URL-level check; only the connect-time check sees 127.0.0.1 / ::1.
  LoopbackServer server;
  serve_page(server);
  FetchOptions options = loopback_options();
  options.allowed_ranges.clear();
  FetchCollector collector;
  Fetcher fetcher(options, collector.callback());
  std::string url = server.url("/");
  url.replace(url.find("127.0.0.1"), 9, "localhost");
  fetcher.submit({1, url, ""});
  const FetchResult result = collector.wait_one();
  EXPECT_EQ(result.outcome, FetchOutcome::kBlockedAddress) << result.error;
}

TEST(FetcherTest, CompressedPageIsDecoded) {
  LoopbackServer server;
  std::string big_page = "<html><body>";
  for (int i = 0; i < 2000; ++i) big_page += "<p>repetitive text compresses well</p>";
  big_page += "</body></html>";
  std::string seen_accept_encoding;
  server.server().Get("/big", [&](const httplib::Request& request, httplib::Response& response) {
    seen_accept_encoding = request.get_header_value("Accept-Encoding");
    response.set_content(big_page, "text/html");  // cpp-httplib compresses text/* on request
  });
  server.start();
  FetchCollector collector;
  Fetcher fetcher(loopback_options(), collector.callback());
  fetcher.submit({1, server.url("/big"), ""});
  const FetchResult result = collector.wait_one();
  ASSERT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
  EXPECT_EQ(result.body, big_page);
  EXPECT_EQ(result.body_decoded_bytes, big_page.size());
  EXPECT_LT(result.body_wire_bytes * 10, result.body_decoded_bytes);
  EXPECT_NE(seen_accept_encoding.find("gzip"), std::string::npos) << seen_accept_encoding;
}

TEST(FetcherTest, RedirectIsReportedNotFollowed) {
  LoopbackServer server;
  std::atomic<int> target_hits{0};
  server.server().Get("/from", [](const httplib::Request&, httplib::Response& response) {
    response.status = 301;
    response.set_header("Location", "../to?x=1");
    response.set_header("Retry-After", "120");
  });
  server.server().Get("/to", [&](const httplib::Request&, httplib::Response& response) {
    ++target_hits;
    response.set_content(kPage, "text/html");
  });
  server.start();
  FetchCollector collector;
  Fetcher fetcher(loopback_options(), collector.callback());
  fetcher.submit({1, server.url("/from"), ""});
  const FetchResult result = collector.wait_one();
  EXPECT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
  EXPECT_EQ(result.status, 301);
  EXPECT_EQ(result.location, "../to?x=1");
  EXPECT_EQ(result.retry_after, "120");
  EXPECT_EQ(target_hits.load(), 0);
}

TEST(FetcherTest, NonHtmlIsRecordedButNotKept) {
  LoopbackServer server;
  const std::string pdf(200000, 'P');
  server.server().Get("/doc.pdf", [&](const httplib::Request&, httplib::Response& response) {
    response.set_content(pdf, "application/pdf");
  });
  server.server().Get("/small.png", [](const httplib::Request&, httplib::Response& response) {
    response.set_content(std::string(100, 'I'), "image/png");
  });
  serve_page(server, "/page");
  FetchCollector collector;
  Fetcher fetcher(loopback_options(), collector.callback());
  fetcher.submit({1, server.url("/doc.pdf"), ""});
  FetchResult big = collector.wait_for(1)[0];
  fetcher.submit({2, server.url("/small.png"), ""});
  FetchResult small = collector.wait_for(2)[1];
  for (const FetchResult* result : {&big, &small}) {
    EXPECT_EQ(result->outcome, FetchOutcome::kOk) << result->error;
    EXPECT_EQ(result->status, 200);
    EXPECT_FALSE(result->content_accepted);
    EXPECT_TRUE(result->body.empty());
  }
  EXPECT_EQ(big.content_type, "application/pdf");
  EXPECT_EQ(big.content_length, static_cast<int64_t>(pdf.size()));
  EXPECT_LT(big.body_wire_bytes, pdf.size());  // abandoned after the head
  EXPECT_EQ(small.content_length, 100);
  // The large body was abandoned by closing its connection; the small one was drained, so its
  // connection serves the next request.
  fetcher.submit({3, server.url("/page"), ""});
  EXPECT_EQ(collector.wait_for(3)[2].outcome, FetchOutcome::kOk);
  EXPECT_EQ(server.connections(), 2u);
}

TEST(FetcherTest, AcceptOverrideKeepsOtherTypes) {
  LoopbackServer server;
  server.server().Get("/robots.txt", [](const httplib::Request&, httplib::Response& response) {
    response.set_content("User-agent: *\nDisallow: /private\n", "text/plain");
  });
  server.start();
  FetchCollector collector;
  Fetcher fetcher(loopback_options(), collector.callback());
  fetcher.submit({1, server.url("/robots.txt"), "text/plain"});
  const FetchResult result = collector.wait_one();
  ASSERT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
  EXPECT_TRUE(result.content_accepted);
  EXPECT_EQ(result.body, "User-agent: *\nDisallow: /private\n");
}

// robots.txt: a body over the fetch limit is no failure when only its first part is wanted, whether
// its length is announced or it arrives in chunks.
TEST(FetcherTest, KeepFirstBytesCutsALongBodyInsteadOfFailing) {
  LoopbackServer server;
  std::string big;
  for (int i = 0; big.size() < 3'000'000; ++i) big += "Disallow: /folder" + std::to_string(i) + "/\n";
  server.server().Get("/announced", [&](const httplib::Request&, httplib::Response& response) {
    response.set_content(big, "text/plain");
  });
  server.server().Get("/chunked", [&](const httplib::Request&, httplib::Response& response) {
    response.set_chunked_content_provider("text/plain", [&](size_t offset, httplib::DataSink& sink) {
      if (offset >= big.size()) {
        sink.done();
        return true;
      }
      return sink.write(big.data() + offset, std::min<size_t>(size_t{64} << 10, big.size() - offset));
    });
  });
  server.server().Get("/short", [](const httplib::Request&, httplib::Response& response) {
    response.set_content("User-agent: *\n", "text/plain");
  });
  server.start();
  FetchOptions options = loopback_options();
  options.max_body_bytes = 1'000'000;  // the file is three times the limit
  options.compression = false;         // the server would take longer to compress it than the timeouts allow
  FetchCollector collector;
  Fetcher fetcher(options, collector.callback());
  const size_t keep = 512'000;
  const std::vector<FetchRequest> requests = {
      {.id = 1, .url = server.url("/announced"), .accept_types_override = "*/*", .keep_first_bytes = keep},
      {.id = 2, .url = server.url("/chunked"), .accept_types_override = "*/*", .keep_first_bytes = keep},
      {.id = 3, .url = server.url("/short"), .accept_types_override = "*/*", .keep_first_bytes = keep},
      {.id = 4, .url = server.url("/announced"), .accept_types_override = "*/*"},
  };
  std::vector<FetchResult> results;
  for (const FetchRequest& request : requests) {
    fetcher.submit(request);
    results = collector.wait_for(request.id);
  }
  std::sort(results.begin(), results.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(results[i].outcome, FetchOutcome::kOk) << results[i].url << ": " << results[i].error;
    EXPECT_EQ(results[i].status, 200);
    EXPECT_TRUE(results[i].body_truncated) << results[i].url;
    EXPECT_EQ(results[i].body.size(), keep) << results[i].url;
    EXPECT_TRUE(results[i].body == big.substr(0, keep)) << results[i].url;
  }
  EXPECT_EQ(results[2].outcome, FetchOutcome::kOk) << results[2].error;
  EXPECT_FALSE(results[2].body_truncated);
  EXPECT_EQ(results[2].body, "User-agent: *\n");
  // Without keep_first_bytes, max_body_bytes cuts the body (config/README.md fetch.max_body_bytes).
  EXPECT_EQ(results[3].outcome, FetchOutcome::kOk) << results[3].error;
  EXPECT_TRUE(results[3].body_truncated);
  EXPECT_TRUE(results[3].body == big.substr(0, options.max_body_bytes));
}

TEST(FetcherTest, ResultCarriesTheParsedMediaType) {
  LoopbackServer server;
  server.server().Get("/page", [](const httplib::Request&, httplib::Response& response) {
    response.set_content(kPage, " Text/HTML ; charset=UTF-8");
  });
  server.server().Get("/doc.pdf", [](const httplib::Request&, httplib::Response& response) {
    response.set_content(std::string(10, 'P'), "application/PDF");
  });
  server.start();
  FetchCollector collector;
  Fetcher fetcher(loopback_options(), collector.callback());
  fetcher.submit({1, server.url("/page"), "", "127.0.0.1"});
  fetcher.submit({2, server.url("/doc.pdf"), "", "127.0.0.1"});
  std::vector<FetchResult> results = collector.wait_for(2);
  std::sort(results.begin(), results.end(), [](const FetchResult& a, const FetchResult& b) { return a.id < b.id; });
  ASSERT_EQ(results[0].outcome, FetchOutcome::kOk) << results[0].error;
  EXPECT_EQ(results[0].media_type, "text/html");
  EXPECT_TRUE(results[0].content_accepted);
  ASSERT_EQ(results[1].outcome, FetchOutcome::kOk) << results[1].error;
  EXPECT_EQ(results[1].media_type, "application/pdf");
  EXPECT_FALSE(results[1].content_accepted);
}

// The 20 transfers wait inside libcurl for the host's one connection, and a transfer's timeouts
// count that wait: the last one waits for the other 19, which on a loaded 2-core machine took
// more than loopback_options()' 2 s once (a clean-clone run, "Connection timed out after 0
// milliseconds"). What is tested is the one connection, so the timeouts are a crawl's, not 2 s.
TEST(FetcherTest, KeepAliveServesManyRequestsOnOneConnection) {
  LoopbackServer server;
  serve_numbered_pages(server);
  FetchOptions options = loopback_options();
  options.max_host_connections = 1;
  options.connect_timeout = std::chrono::seconds(30);
  options.total_timeout = std::chrono::seconds(30);
  fetch_numbered_pages(server, options, 20);
  EXPECT_EQ(server.connections(), 1u);
}

// Requests queued behind a full worker do not wake it one by one (fetch_worker.cc): each starts
// when a transfer ends. Were they left for the worker's next poll timeout (a second each), these
// 30 would take half a minute; the bound is that, with room for a slow machine.
TEST(FetcherTest, RequestsQueuedBehindAFullWorkerStartAsTransfersEnd) {
  LoopbackServer server;
  serve_numbered_pages(server);
  FetchOptions options = loopback_options();
  options.threads = 1;
  options.transfers_per_thread = 1;
  fetch_numbered_pages(server, options, 30, std::chrono::seconds(15));
}

TEST(FetcherTest, SequentialRequestsReuseTheConnection) {
  LoopbackServer server;
  serve_page(server);
  FetchCollector collector;
  Fetcher fetcher(loopback_options(), collector.callback());
  for (int i = 0; i < 5; ++i) {
    fetcher.submit({static_cast<uint64_t>(i), server.url("/"), ""});
    EXPECT_EQ(collector.wait_for(i + 1).back().outcome, FetchOutcome::kOk);
  }
  EXPECT_EQ(server.connections(), 1u);
}

// A request marked close_connection does not leave its connection cached: the next request to the
// host connects anew, while unmarked ones keep reusing theirs.
TEST(FetcherTest, ARequestMarkedCloseConnectionClosesItsConnection) {
  LoopbackServer server;
  serve_page(server);
  FetchCollector collector;
  Fetcher fetcher(loopback_options(), collector.callback());
  const bool close_after[] = {false, true, false, false, true, false};
  for (size_t i = 0; i < std::size(close_after); ++i) {
    FetchRequest request{i, server.url("/"), ""};
    request.close_connection = close_after[i];
    fetcher.submit(std::move(request));
    ASSERT_EQ(collector.wait_for(i + 1).back().outcome, FetchOutcome::kOk);
  }
  // Requests 0-1 share one connection, 2-4 a second, 5 a third.
  EXPECT_EQ(server.connections(), 3u);
}

TEST(FetcherTest, CapturesRequestAndResponseHeaders) {
  LoopbackServer server;
  server.server().Get("/", [](const httplib::Request&, httplib::Response& response) {
    response.set_header("X-Custom", "yes");
    response.set_content(kPage, "text/html");
  });
  server.start();
  FetchOptions options = loopback_options();
  options.capture_headers = true;
  FetchCollector collector;
  Fetcher fetcher(options, collector.callback());
  fetcher.submit({1, server.url("/"), ""});
  const FetchResult result = collector.wait_one();
  ASSERT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
  EXPECT_TRUE(result.request_headers.starts_with("GET / HTTP/1.1\r\n")) << result.request_headers;
  EXPECT_NE(result.request_headers.find("User-Agent: bloomcrawl-test/1.0\r\n"), std::string::npos);
  EXPECT_TRUE(result.response_headers.starts_with("HTTP/1.1 200 OK\r\n")) << result.response_headers;
  EXPECT_NE(result.response_headers.find("X-Custom: yes\r\n"), std::string::npos);
  EXPECT_TRUE(result.response_headers.ends_with("\r\n\r\n"));
}

// A handler that holds its response until released, so a test controls when a transfer ends.
class Gate {
 public:
  void wait_arrived(int count) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return arrived_ >= count; });
  }
  void hold() {
    std::unique_lock lock(mutex_);
    ++arrived_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return released_; });
  }
  void release() {
    std::lock_guard lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int arrived_ = 0;
  bool released_ = false;
};

TEST(FetcherTest, StopCancelsInFlightAndQueuedRequests) {
  Gate gate;  // outlives the server's handler threads
  LoopbackServer server;
  server.server().Get("/slow", [&](const httplib::Request&, httplib::Response& response) {
    gate.hold();
    response.set_content(kPage, "text/html");
  });
  server.start();
  FetchOptions options = loopback_options();
  options.transfers_per_thread = 2;
  options.total_timeout = std::chrono::milliseconds(60000);
  options.idle_timeout = std::chrono::milliseconds(60000);
  FetchCollector collector;
  Fetcher fetcher(options, collector.callback());
  for (uint64_t id = 0; id < 5; ++id) fetcher.submit({id, server.url("/slow"), ""});
  gate.wait_arrived(2);  // two transfers are on the server, three wait in the queue
  EXPECT_EQ(fetcher.in_flight(), 5u);
  fetcher.stop();
  const std::vector<FetchResult> results = collector.wait_for(5);
  std::set<uint64_t> ids;
  for (const FetchResult& result : results) {
    EXPECT_EQ(result.outcome, FetchOutcome::kCancelled);
    EXPECT_FALSE(result.error.empty());
    ids.insert(result.id);
  }
  EXPECT_EQ(ids.size(), 5u);
  EXPECT_EQ(fetcher.in_flight(), 0u);
  fetcher.submit({9, server.url("/slow"), ""});
  EXPECT_EQ(collector.wait_for(6).back().outcome, FetchOutcome::kCancelled);
  gate.release();
}

TEST(FetcherTest, IdleServerEndsInTimeout) {
  Gate gate;  // outlives the server's handler threads
  LoopbackServer server;
  server.server().Get("/hang", [&](const httplib::Request&, httplib::Response& response) {
    gate.hold();
    response.set_content(kPage, "text/html");
  });
  server.start();
  FetchCollector collector;
  Fetcher fetcher(loopback_options(), collector.callback());
  fetcher.submit({1, server.url("/hang"), ""});
  const FetchResult result = collector.wait_one();
  gate.release();
  EXPECT_EQ(result.outcome, FetchOutcome::kTimeout) << result.error;
  EXPECT_FALSE(result.error.empty());
}

// A loopback port with nothing listening.
int closed_port() {
  const int port = testing::unused_loopback_port();
  EXPECT_NE(port, 0);
  return port;
}

TEST(FetcherTest, ConnectionRefusedIsConnectFailed) {
  FetchCollector collector;
  Fetcher fetcher(loopback_options(), collector.callback());
  fetcher.submit({1, "http://127.0.0.1:" + std::to_string(closed_port()) + "/", ""});
  const FetchResult result = collector.wait_one();
  EXPECT_EQ(result.outcome, FetchOutcome::kConnectFailed) << result.error;
}

TEST(FetcherTest, UnknownHostIsDnsFailed) {
  FetchCollector collector;
  Fetcher fetcher(loopback_options(), collector.callback());
  fetcher.submit({1, "http://no-such-host.invalid/", ""});
  const FetchResult result = collector.wait_one();
  EXPECT_EQ(result.outcome, FetchOutcome::kDnsFailed) << result.error;
}

TEST(FetcherTest, RejectsBadOptions) {
  FetchOptions options = loopback_options();
  options.threads = 0;
  EXPECT_THROW(Fetcher(options, [](FetchResult&&) {}), std::invalid_argument);
  options = loopback_options();
  options.allowed_ranges = {"127.0.0.0/33"};
  EXPECT_THROW(Fetcher(options, [](FetchResult&&) {}), std::invalid_argument);
}

TEST(FetcherTest, OutcomeNamesAreStable) {
  EXPECT_STREQ(fetch_outcome_name(FetchOutcome::kOk), "ok");
  EXPECT_STREQ(fetch_outcome_name(FetchOutcome::kBlockedAddress), "blocked_address");
  EXPECT_STREQ(fetch_outcome_name(FetchOutcome::kHeaderTooLarge), "header_too_large");
}

}  // namespace
}  // namespace bloomcrawl
