// The fetcher against servers that misbehave on purpose: every exchange must end with a clear
// outcome and error, within its timeouts, with memory bounded by the caps, and nothing may hang.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "crawler/fetch/fetcher.h"
#include "tests/support/fetch_test_support.h"
#include "tests/support/hostile_server.h"

namespace bloomcrawl {
namespace {

using testing::FetchCollector;
using testing::HostileServer;

// Slack over a byte cap: libcurl delivers data in buffers of up to 16 KiB (CURLOPT_BUFFERSIZE),
// so a cap is detected within one buffer of being crossed.
constexpr uint64_t kBufferSlack = 64 << 10;

FetchOptions hostile_options() {
  FetchOptions options = testing::loopback_fetch_options();
  options.max_body_bytes = 2 << 20;
  options.max_decoded_bytes = 4 << 20;
  options.max_header_bytes = 64 << 10;
  return options;
}

class HostileFetchTest : public ::testing::Test {
 protected:
  FetchResult fetch(const char* path, const FetchOptions& options = hostile_options()) {
    FetchCollector collector;
    Fetcher fetcher(options, collector.callback());
    fetcher.submit({1, server_.url(path), ""});
    FetchResult result = collector.wait_one();
    check_bounded(result, options);
    return result;
  }

  static void check_bounded(const FetchResult& result, const FetchOptions& options) {
    EXPECT_LE(result.body.size(), options.max_decoded_bytes);
    EXPECT_LE(result.body_decoded_bytes, options.max_decoded_bytes + kBufferSlack);
    EXPECT_LE(result.body_wire_bytes, options.max_body_bytes + kBufferSlack);
    EXPECT_LE(result.header_bytes, options.max_header_bytes + kBufferSlack);
    if (result.outcome != FetchOutcome::kOk) {
      EXPECT_FALSE(result.error.empty()) << fetch_outcome_name(result.outcome);
      EXPECT_TRUE(result.body.empty());
    }
  }

  HostileServer server_;
};

TEST_F(HostileFetchTest, SlowDripEndsInTimeout) {
  const FetchResult result = fetch(HostileServer::kSlowDrip);
  EXPECT_EQ(result.outcome, FetchOutcome::kTimeout) << result.error;
}

TEST_F(HostileFetchTest, StallAfterHeadEndsInTimeout) {
  const FetchResult result = fetch(HostileServer::kStall);
  EXPECT_EQ(result.outcome, FetchOutcome::kTimeout) << result.error;
  EXPECT_EQ(result.status, 200);
}

// config/README.md fetch.max_body_bytes: "larger bodies are truncated and marked so": the page is
// kept, cut exactly at the limit.
TEST_F(HostileFetchTest, EndlessBodyIsCutAtBodyCap) {
  const FetchResult result = fetch(HostileServer::kEndless);
  EXPECT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
  EXPECT_TRUE(result.body_truncated);
  EXPECT_EQ(result.body.size(), hostile_options().max_body_bytes);
  EXPECT_TRUE(result.body.starts_with("<p>endless</p>"));
  EXPECT_TRUE(result.payload_digest.empty()) << "not the whole body";
}

TEST_F(HostileFetchTest, RedirectLoopsAreReportedNotFollowed) {
  const FetchResult self = fetch(HostileServer::kRedirectSelf);
  EXPECT_EQ(self.outcome, FetchOutcome::kOk) << self.error;
  EXPECT_EQ(self.status, 302);
  EXPECT_EQ(self.location, HostileServer::kRedirectSelf);
  const FetchResult a = fetch(HostileServer::kRedirectA);
  EXPECT_EQ(a.location, HostileServer::kRedirectB);
  const FetchResult b = fetch(HostileServer::kRedirectB);
  EXPECT_EQ(b.location, HostileServer::kRedirectA);
  EXPECT_EQ(server_.connections(), 3u);  // one request each: nothing was followed
}

// config/README.md fetch.max_decoded_bytes: the decoded body is cut at the limit, as at max_body_bytes.
TEST_F(HostileFetchTest, GzipBombIsCutAtDecodedCap) {
  const FetchResult result = fetch(HostileServer::kGzipBomb);
  EXPECT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
  EXPECT_TRUE(result.body_truncated);
  EXPECT_EQ(result.body.size(), hostile_options().max_decoded_bytes);
  // The wire cap alone would never catch it: only a few KB arrived compressed.
  EXPECT_LT(result.body_wire_bytes, hostile_options().max_body_bytes / 16);
}

TEST_F(HostileFetchTest, BrotliBombIsCutAtDecodedCap) {
  if (!HostileServer::brotli_available()) GTEST_SKIP() << "libbrotlienc.so.1 not loadable";
  const FetchResult result = fetch(HostileServer::kBrotliBomb);
  EXPECT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
  EXPECT_TRUE(result.body_truncated);
  EXPECT_EQ(result.body.size(), hostile_options().max_decoded_bytes);
  EXPECT_LT(result.body_wire_bytes, hostile_options().max_body_bytes / 16);
}

TEST_F(HostileFetchTest, HonestGzipPageIsDecoded) {
  const FetchResult result = fetch(HostileServer::kGzipPage);
  ASSERT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
  EXPECT_EQ(result.body, HostileServer::body_of(HostileServer::kGzipPage));
  EXPECT_LT(result.body_wire_bytes, result.body_decoded_bytes);
}

TEST_F(HostileFetchTest, ManyHugeHeaderLinesStopAtHeaderCap) {
  const FetchResult result = fetch(HostileServer::kHugeHeaders);
  EXPECT_EQ(result.outcome, FetchOutcome::kHeaderTooLarge) << result.error;
  EXPECT_NE(result.error.find("max_header_bytes"), std::string::npos) << result.error;
}

TEST_F(HostileFetchTest, OneHugeHeaderLineIsRejected) {
  const FetchResult result = fetch(HostileServer::kHugeHeaderLine);
  EXPECT_EQ(result.outcome, FetchOutcome::kHeaderTooLarge) << result.error;
}

TEST_F(HostileFetchTest, BrokenChunkedEncodingIsProtocolError) {
  const FetchResult result = fetch(HostileServer::kBrokenChunked);
  EXPECT_EQ(result.outcome, FetchOutcome::kProtocolError) << result.error;
}

TEST_F(HostileFetchTest, ResetMidBodyIsConnectionReset) {
  const FetchResult result = fetch(HostileServer::kResetMidBody);
  EXPECT_EQ(result.outcome, FetchOutcome::kConnectionReset) << result.error;
}

TEST_F(HostileFetchTest, ContentIsDeliveredByteExactWhateverItContains) {
  // The fetcher moves bytes; judging them (sniffing, decoding, parsing depth) is the parser's job.
  for (const char* path : {HostileServer::kBinaryAsHtml, HostileServer::kInvalidUtf8, HostileServer::kDeepNesting}) {
    const FetchResult result = fetch(path);
    ASSERT_EQ(result.outcome, FetchOutcome::kOk) << path << ": " << result.error;
    EXPECT_TRUE(result.content_accepted) << path;
    EXPECT_EQ(result.body, HostileServer::body_of(path)) << path;
  }
}

TEST_F(HostileFetchTest, ContentLengthLongerThanBodyIsProtocolError) {
  const FetchResult result = fetch(HostileServer::kLyingLengthLong);
  EXPECT_EQ(result.outcome, FetchOutcome::kProtocolError) << result.error;
}

TEST_F(HostileFetchTest, ContentLengthShorterThanBodyKeepsDeclaredBytes) {
  const FetchResult result = fetch(HostileServer::kLyingLengthShort);
  ASSERT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
  EXPECT_EQ(result.body, std::string(10, 's'));
}

// A declared length over max_body_bytes is no failure by itself (the body would be cut at the
// limit); this server then sends nothing more, and the idle timeout ends it.
TEST_F(HostileFetchTest, HugeDeclaredLengthIsReadNotRefused) {
  const FetchResult result = fetch(HostileServer::kHugeContentLength);
  EXPECT_EQ(result.outcome, FetchOutcome::kTimeout) << result.error;
  EXPECT_EQ(result.content_length, 100000000000);
  EXPECT_EQ(result.body_wire_bytes, 6u) << "<html> was read";
}

TEST_F(HostileFetchTest, NoResponseIsConnectionReset) {
  const FetchResult result = fetch(HostileServer::kNoResponse);
  EXPECT_EQ(result.outcome, FetchOutcome::kConnectionReset) << result.error;
}

TEST_F(HostileFetchTest, NonHttpAnswerIsProtocolError) {
  const FetchResult result = fetch(HostileServer::kNotHttp);
  EXPECT_EQ(result.outcome, FetchOutcome::kProtocolError) << result.error;
}

TEST_F(HostileFetchTest, PlaintextAnswerToTlsIsTlsError) {
  FetchCollector collector;
  Fetcher fetcher(hostile_options(), collector.callback());
  fetcher.submit({1, "https://127.0.0.1:" + std::to_string(server_.port()) + "/", ""});
  const FetchResult result = collector.wait_one();
  EXPECT_EQ(result.outcome, FetchOutcome::kTlsError) << result.error;
}

TEST_F(HostileFetchTest, DefaultGuardBlocksTheLoopbackServer) {
  FetchOptions options = hostile_options();
  options.allowed_ranges.clear();
  const FetchResult result = fetch(HostileServer::kEndless, options);
  EXPECT_EQ(result.outcome, FetchOutcome::kBlockedAddress) << result.error;
  EXPECT_NE(result.error.find("127.0.0.1"), std::string::npos) << result.error;
  EXPECT_EQ(server_.connections(), 0u);
}

TEST_F(HostileFetchTest, AllModesAtOnceEndWithoutHangingOrCancelling) {
  const std::map<std::string, FetchOutcome> expected = {
      {HostileServer::kSlowDrip, FetchOutcome::kTimeout},
      {HostileServer::kStall, FetchOutcome::kTimeout},
      {HostileServer::kEndless, FetchOutcome::kOk},
      {HostileServer::kRedirectSelf, FetchOutcome::kOk},
      {HostileServer::kGzipBomb, FetchOutcome::kOk},
      {HostileServer::kHugeHeaders, FetchOutcome::kHeaderTooLarge},
      {HostileServer::kBrokenChunked, FetchOutcome::kProtocolError},
      {HostileServer::kResetMidBody, FetchOutcome::kConnectionReset},
      {HostileServer::kDeepNesting, FetchOutcome::kOk},
      {HostileServer::kLyingLengthLong, FetchOutcome::kProtocolError},
      {HostileServer::kHugeContentLength, FetchOutcome::kTimeout},
      {HostileServer::kNoResponse, FetchOutcome::kConnectionReset},
  };
  const FetchOptions options = hostile_options();
  FetchCollector collector;
  Fetcher fetcher(options, collector.callback());
  uint64_t id = 0;
  for (const auto& [path, outcome] : expected) fetcher.submit({id++, server_.url(path), ""});
  for (const FetchResult& result : collector.wait_for(expected.size())) {
    const std::string path = result.url.substr(server_.url("").size());
    EXPECT_EQ(result.outcome, expected.at(path)) << path << ": " << result.error;
    check_bounded(result, options);
  }
}

}  // namespace
}  // namespace bloomcrawl
