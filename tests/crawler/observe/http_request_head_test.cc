// parse_request_head: the status port's request heads, complete, incomplete and refused.
#include "crawler/observe/http_request_head.h"

#include <gtest/gtest.h>

#include <string>

namespace bloomcrawl {
namespace {

using State = HeadParse::State;

TEST(HttpRequestHeadTest, ParsesARequestLineAndFields) {
  const HeadParse p = parse_request_head("GET /metrics?x=1 HTTP/1.1\r\nHost: 127.0.0.1:9464\r\nAccept:  */* \r\n\r\n");
  ASSERT_EQ(p.state, State::kComplete);
  EXPECT_EQ(p.head.method, "GET");
  EXPECT_EQ(p.head.target, "/metrics?x=1");
  EXPECT_EQ(p.head.path(), "/metrics");
  EXPECT_EQ(p.head.version, "HTTP/1.1");
  ASSERT_EQ(p.head.values("host").size(), 1u);
  EXPECT_EQ(p.head.values("host")[0], "127.0.0.1:9464");
  EXPECT_EQ(p.head.values("accept")[0], "*/*");
}

TEST(HttpRequestHeadTest, AcceptsBareLineFeedsAndLeadingEmptyLines) {
  const HeadParse p = parse_request_head("\r\nHEAD / HTTP/1.0\nX-A: b\n\n");
  ASSERT_EQ(p.state, State::kComplete);
  EXPECT_EQ(p.head.method, "HEAD");
  EXPECT_EQ(p.head.values("x-a")[0], "b");
}

TEST(HttpRequestHeadTest, WaitsForTheEmptyLine) {
  EXPECT_EQ(parse_request_head("").state, State::kIncomplete);
  EXPECT_EQ(parse_request_head("GET / HTTP/1.1\r\nHost: a\r\n").state, State::kIncomplete);
  EXPECT_EQ(parse_request_head("GET / HTTP/1.1\r\nHost: a\r\n\r").state, State::kIncomplete);
}

TEST(HttpRequestHeadTest, RefusesMalformedHeads) {
  for (const char* head : {"GET /\r\n\r\n", "GET / HTTP/2\r\n\r\n", "G(T / HTTP/1.1\r\n\r\n",
                           "GET /a b HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nHost : a\r\n\r\n",
                           "GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", "GET / HTTP/1.1\r\nno colon\r\n\r\n"}) {
    const HeadParse p = parse_request_head(head);
    EXPECT_EQ(p.state, State::kRefused) << head;
    EXPECT_EQ(p.status, 400) << head;
  }
}

TEST(HttpRequestHeadTest, RefusesAHeadOverItsByteBoundBeforeItEnds) {
  const std::string start = "GET / HTTP/1.1\r\nX: " + std::string(kMaxHeadBytes, 'a');
  const HeadParse p = parse_request_head(start);
  EXPECT_EQ(p.state, State::kRefused);
  EXPECT_EQ(p.status, 431);
  EXPECT_EQ(parse_request_head(start + "\r\n\r\n").status, 431);
  const std::string just_fits = "GET / HTTP/1.1\r\nX: " + std::string(kMaxHeadBytes - 23, 'a') + "\r\n\r\n";
  ASSERT_EQ(just_fits.size(), kMaxHeadBytes);
  EXPECT_EQ(parse_request_head(just_fits).state, State::kComplete);
}

TEST(HttpRequestHeadTest, RefusesMoreFieldsThanItsBound) {
  std::string head = "GET / HTTP/1.1\r\n";
  for (size_t i = 0; i < kMaxHeadFields; ++i) head += "A:1\r\n";
  EXPECT_EQ(parse_request_head(head + "\r\n").state, State::kComplete);
  head += "A:1\r\n";
  EXPECT_EQ(parse_request_head(head).status, 431);  // known before the head ends
  EXPECT_EQ(parse_request_head(head + "\r\n").status, 431);
}

}  // namespace
}  // namespace bloomcrawl
