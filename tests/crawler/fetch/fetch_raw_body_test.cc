// The fetcher keeps a body as received (for WARC) and decodes it itself: content codings (gzip,
// deflate with and without its zlib wrapper) and the chunked framing are undone for the parser,
// while the raw bytes and the payload digest (de-chunked, still encoded) describe the wire.
#include <gtest/gtest.h>
#include <httplib.h>
#include <zlib.h>

#include <list>
#include <string>

#include "crawler/fetch/fetcher.h"
#include "crawler/fetch/payload_digest.h"
#include "tests/support/fetch_loopback_server.h"
#include "tests/support/fetch_test_support.h"
#include "tests/support/gzip.h"

namespace bloomcrawl {
namespace {

// A type cpp-httplib does not compress on its own, so the test decides the coding.
constexpr const char* kType = "application/x-test";

std::string page() {
  std::string html = "<html><body>";
  for (int i = 0; i < 2000; ++i) html += "<a href=\"/p" + std::to_string(i) + "\">link</a>";
  return html + "</body></html>";
}

// RFC 1951 deflate, raw (`window` -15) or zlib-wrapped (15).
std::string deflated(const std::string& data, int window) {
  z_stream zs{};
  deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, uLong(data.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = uInt(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = uInt(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

class FetchRawBodyTest : public ::testing::Test {
 protected:
  // Serves `encoded` under Content-Encoding `coding`, with a length or in 1000-byte chunks.
  void serve(const std::string& path, std::string encoded, const std::string& coding, bool chunked) {
    bodies_.push_back(std::move(encoded));
    const std::string& body = bodies_.back();
    server_.server().Get(path, [&body, coding, chunked](const httplib::Request&, httplib::Response& response) {
      if (!coding.empty()) response.set_header("Content-Encoding", coding);
      if (!chunked) {
        response.set_content(body, kType);
        return;
      }
      response.set_chunked_content_provider(kType, [&body](size_t offset, httplib::DataSink& sink) {
        if (offset >= body.size()) {
          sink.done();
          return true;
        }
        return sink.write(body.data() + offset, std::min<size_t>(1000, body.size() - offset));
      });
    });
  }

  FetchResult fetch(const std::string& path, bool capture = true) {
    FetchOptions options = testing::loopback_fetch_options();
    options.capture_headers = capture;
    testing::FetchCollector collector;
    Fetcher fetcher(options, collector.callback());
    fetcher.submit({.id = 1, .url = server_.url(path), .accept_types_override = kType});
    return collector.wait_one();
  }

  testing::LoopbackHttpServer server_;
  std::list<std::string> bodies_;
};

TEST_F(FetchRawBodyTest, KeepsTheBodyAsReceivedAndParsesItDecoded) {
  const std::string html = page();
  const std::string gz = testing::gzip(html);
  serve("/gzip", gz, "gzip", false);
  serve("/gzip-chunked", gz, "gzip", true);
  serve("/deflate-raw", deflated(html, -15), "deflate", true);
  serve("/deflate-zlib", deflated(html, 15), "deflate", false);
  serve("/plain-chunked", html, "", true);
  server_.start();

  const FetchResult plain = fetch("/gzip");
  ASSERT_EQ(plain.outcome, FetchOutcome::kOk) << plain.error;
  EXPECT_TRUE(plain.body == html);
  EXPECT_TRUE(plain.raw_body == gz);
  EXPECT_EQ(plain.payload_digest, sha1_base32_digest(gz));
  EXPECT_NE(plain.response_headers.find("Content-Encoding: gzip\r\n"), std::string::npos) << plain.response_headers;
  EXPECT_EQ(plain.body_decoded_bytes, html.size());
  EXPECT_EQ(plain.body_wire_bytes, gz.size());

  const FetchResult chunked = fetch("/gzip-chunked");
  ASSERT_EQ(chunked.outcome, FetchOutcome::kOk) << chunked.error;
  EXPECT_TRUE(chunked.body == html);
  EXPECT_TRUE(chunked.raw_body.starts_with("3e8\r\n")) << chunked.raw_body.substr(0, 8);  // the framing is kept
  EXPECT_TRUE(chunked.raw_body.ends_with("0\r\n\r\n"));
  EXPECT_GT(chunked.raw_body.size(), gz.size());
  EXPECT_EQ(chunked.payload_digest, sha1_base32_digest(gz)) << "the payload is de-chunked, still encoded";

  for (const char* path : {"/deflate-raw", "/deflate-zlib", "/plain-chunked"}) {
    const FetchResult r = fetch(path);
    ASSERT_EQ(r.outcome, FetchOutcome::kOk) << path << ": " << r.error;
    EXPECT_TRUE(r.body == html) << path;
  }
}

// A body that came neither chunked nor content-coded is kept once: `body` is what was received.
TEST_F(FetchRawBodyTest, ABodyReceivedAsIsIsKeptOnce) {
  const std::string html = page();
  serve("/plain", html, "", false);
  serve("/plain-chunked", html, "", true);
  server_.start();

  const FetchResult plain = fetch("/plain");
  ASSERT_EQ(plain.outcome, FetchOutcome::kOk) << plain.error;
  EXPECT_TRUE(plain.body == html);
  EXPECT_TRUE(plain.raw_body.empty());
  EXPECT_TRUE(received_body(plain) == html);
  EXPECT_EQ(plain.payload_digest, sha1_base32_digest(html));
  EXPECT_EQ(plain.body_wire_bytes, html.size());

  const FetchResult chunked = fetch("/plain-chunked");
  ASSERT_EQ(chunked.outcome, FetchOutcome::kOk) << chunked.error;
  EXPECT_TRUE(chunked.body == html);
  EXPECT_TRUE(received_body(chunked) == chunked.raw_body);
  EXPECT_TRUE(chunked.raw_body.starts_with("3e8\r\n")) << chunked.raw_body.substr(0, 8);
  EXPECT_EQ(chunked.payload_digest, sha1_base32_digest(html));
}

TEST_F(FetchRawBodyTest, DigestWithoutCaptureAndNoRawBody) {
  serve("/gzip", testing::gzip("hello"), "gzip", false);
  server_.start();
  const FetchResult r = fetch("/gzip", /*capture=*/false);
  ASSERT_EQ(r.outcome, FetchOutcome::kOk) << r.error;
  EXPECT_EQ(r.body, "hello");
  EXPECT_TRUE(r.raw_body.empty());
  EXPECT_EQ(r.payload_digest, sha1_base32_digest(testing::gzip("hello")));
}

TEST_F(FetchRawBodyTest, UnknownOrBrokenCodingIsAProtocolError) {
  serve("/zstd", "not really zstd", "zstd", false);
  serve("/bad-gzip", "\x1f\x8b garbage that is not gzip", "gzip", false);
  server_.start();
  const FetchResult unknown = fetch("/zstd");
  EXPECT_EQ(unknown.outcome, FetchOutcome::kProtocolError);
  EXPECT_NE(unknown.error.find("Content-Encoding: zstd"), std::string::npos) << unknown.error;
  EXPECT_TRUE(unknown.body.empty());
  EXPECT_TRUE(unknown.payload_digest.empty());
  const FetchResult broken = fetch("/bad-gzip");
  EXPECT_EQ(broken.outcome, FetchOutcome::kProtocolError);
  EXPECT_NE(broken.error.find("gzip"), std::string::npos) << broken.error;
}

}  // namespace
}  // namespace bloomcrawl
