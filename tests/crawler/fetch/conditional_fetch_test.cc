// Conditional GET (docs/recrawl.md "The conditional request"): the validators go out exactly as
// they were received, a 304 to them is kNotModified with no body, and the server sees exactly the
// headers the contract names.
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "crawler/fetch/conditional_request.h"
#include "crawler/fetch/fetcher.h"
#include "tests/support/fetch_loopback_server.h"
#include "tests/support/fetch_test_support.h"

namespace bloomcrawl {
namespace {

using testing::FetchCollector;
using testing::loopback_fetch_options;
using testing::LoopbackHttpServer;

constexpr char kWeakEtag[] = R"(W/"v1-abc")";
constexpr char kLastModified[] = "Sat, 05 Dec 2026 10:00:00 GMT";
constexpr char kBody[] = "<html><body>version one</body></html>";

// What one request carried, as the server saw it.
struct SeenRequest {
  size_t if_none_match_count = 0;
  std::string if_none_match;
  size_t if_modified_since_count = 0;
  std::string if_modified_since;
  bool injected = false;
};

// /page answers 304 when either validator matches what it served, else the page; /always-304
// answers 304 whatever was sent.
class ConditionalServer {
 public:
  ConditionalServer() {
    server_.server().Get("/page", [this](const httplib::Request& request, httplib::Response& response) {
      SeenRequest seen = record(request);
      response.set_header("ETag", kWeakEtag);
      response.set_header("Last-Modified", kLastModified);
      if (seen.if_none_match == kWeakEtag || seen.if_modified_since == kLastModified) {
        response.status = 304;
        return;
      }
      response.set_content(kBody, "text/html");
    });
    server_.server().Get("/always-304", [this](const httplib::Request& request, httplib::Response& response) {
      record(request);
      response.status = 304;
    });
    server_.start();
  }

  std::string url(const std::string& path) const { return server_.url(path); }
  std::vector<SeenRequest> seen() {
    std::lock_guard lock(mutex_);
    return seen_;
  }

 private:
  SeenRequest record(const httplib::Request& request) {
    SeenRequest seen{request.get_header_value_count("If-None-Match"), request.get_header_value("If-None-Match"),
                     request.get_header_value_count("If-Modified-Since"), request.get_header_value("If-Modified-Since"),
                     request.has_header("X-Injected")};
    std::lock_guard lock(mutex_);
    seen_.push_back(seen);
    return seen;
  }

  LoopbackHttpServer server_;
  std::mutex mutex_;
  std::vector<SeenRequest> seen_;
};

FetchResult fetch_once(const std::string& url, ConditionalValidators validators = {}) {
  FetchCollector collector;
  Fetcher fetcher(loopback_fetch_options(), collector.callback());
  FetchRequest request;
  request.id = 1;
  request.url = url;
  request.validators = std::move(validators);
  fetcher.submit(std::move(request));
  return collector.wait_one();
}

TEST(ConditionalRequest, HeaderLinesCarryTheValuesAsReceived) {
  EXPECT_EQ(
      conditional_header_lines({kWeakEtag, kLastModified}),
      (std::vector<std::string>{R"(If-None-Match: W/"v1-abc")", std::string("If-Modified-Since: ") + kLastModified}));
  EXPECT_EQ(conditional_header_lines({"", "not a date at all"}),
            (std::vector<std::string>{"If-Modified-Since: not a date at all"}));
  EXPECT_TRUE(conditional_header_lines({}).empty());
  EXPECT_TRUE(conditional_header_lines({"\"a\"\r\nX-Injected: 1", std::string("x\0y", 3)}).empty());
  EXPECT_EQ(conditional_header_lines({"\"a\tb\"", ""}), (std::vector<std::string>{"If-None-Match: \"a\tb\""}));
}

TEST(ConditionalFetch, AFirstFetchSendsNoValidatorsAndReportsTheResponsesAsReceived) {
  ConditionalServer server;
  FetchResult result = fetch_once(server.url("/page"));
  EXPECT_EQ(result.outcome, FetchOutcome::kOk);
  EXPECT_EQ(result.status, 200);
  EXPECT_EQ(result.body, kBody);
  EXPECT_EQ(result.etag, kWeakEtag);
  EXPECT_EQ(result.last_modified, kLastModified);
  ASSERT_EQ(server.seen().size(), 1u);
  EXPECT_EQ(server.seen()[0].if_none_match_count, 0u);
  EXPECT_EQ(server.seen()[0].if_modified_since_count, 0u);
}

TEST(ConditionalFetch, AWeakEtagGoesBackExactlyAndA304IsNotModifiedWithoutABody) {
  ConditionalServer server;
  FetchResult result = fetch_once(server.url("/page"), {kWeakEtag, ""});
  EXPECT_EQ(result.outcome, FetchOutcome::kNotModified);
  EXPECT_STREQ(fetch_outcome_name(result.outcome), "not_modified");
  EXPECT_EQ(result.status, 304);
  EXPECT_TRUE(result.body.empty());
  EXPECT_TRUE(result.payload_digest.empty());
  EXPECT_EQ(result.etag, kWeakEtag);  // the 304's own validators, for the record to keep
  ASSERT_EQ(server.seen().size(), 1u);
  const SeenRequest seen = server.seen()[0];
  EXPECT_EQ(seen.if_none_match_count, 1u);
  EXPECT_EQ(seen.if_none_match, kWeakEtag);
  EXPECT_EQ(seen.if_modified_since_count, 0u);
}

TEST(ConditionalFetch, LastModifiedGoesBackAsTheTextReceived) {
  ConditionalServer server;
  FetchResult result = fetch_once(server.url("/page"), {"", kLastModified});
  EXPECT_EQ(result.outcome, FetchOutcome::kNotModified);
  const SeenRequest seen = server.seen().at(0);
  EXPECT_EQ(seen.if_none_match_count, 0u);
  EXPECT_EQ(seen.if_modified_since_count, 1u);
  EXPECT_EQ(seen.if_modified_since, kLastModified);
  // A malformed date is the server's to judge: it goes out unchanged, and here it does not match.
  FetchResult malformed = fetch_once(server.url("/page"), {"", "Saturday, 5-Dec-26 10:00 GMT+0"});
  EXPECT_EQ(malformed.outcome, FetchOutcome::kOk);
  EXPECT_EQ(malformed.body, kBody);
  EXPECT_EQ(server.seen().at(1).if_modified_since, "Saturday, 5-Dec-26 10:00 GMT+0");
}

TEST(ConditionalFetch, BothValidatorsGoOutAndAChangedPageComesBackWhole) {
  ConditionalServer server;
  FetchResult result = fetch_once(server.url("/page"), {R"("v0")", "Fri, 04 Dec 2026 10:00:00 GMT"});
  EXPECT_EQ(result.outcome, FetchOutcome::kOk);
  EXPECT_EQ(result.status, 200);
  EXPECT_EQ(result.body, kBody);
  EXPECT_FALSE(result.payload_digest.empty());
  const SeenRequest seen = server.seen().at(0);
  EXPECT_EQ(seen.if_none_match, R"("v0")");
  EXPECT_EQ(seen.if_modified_since, "Fri, 04 Dec 2026 10:00:00 GMT");
  EXPECT_EQ(seen.if_none_match_count, 1u);
  EXPECT_EQ(seen.if_modified_since_count, 1u);
}

TEST(ConditionalFetch, AValidatorThatCouldInjectAHeaderIsNotSent) {
  ConditionalServer server;
  FetchResult result = fetch_once(server.url("/page"), {"\"v1\"\r\nX-Injected: 1", ""});
  EXPECT_EQ(result.outcome, FetchOutcome::kOk);
  const SeenRequest seen = server.seen().at(0);
  EXPECT_EQ(seen.if_none_match_count, 0u);
  EXPECT_FALSE(seen.injected);
}

TEST(ConditionalFetch, A304ToARequestWithoutValidatorsIsNoNotModified) {
  ConditionalServer server;
  FetchResult result = fetch_once(server.url("/always-304"));
  EXPECT_EQ(result.outcome, FetchOutcome::kOk);  // the caller refuses it (docs/recrawl.md)
  EXPECT_EQ(result.status, 304);
  EXPECT_TRUE(result.body.empty());
}

}  // namespace
}  // namespace bloomcrawl
