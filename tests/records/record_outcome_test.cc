// RecordOutcome (records/record_outcome.h): how an outcome changes a record, and its operand's
// round trip and rejections.
#include "records/record_outcome.h"

#include <gtest/gtest.h>

#include <string>

#include "base/data_error.h"

namespace bloomcrawl {
namespace {

UrlRecord queued(const std::string& url) {
  UrlRecord r = record_made_by(
      url, RecordOutcome{.depth = 2, .parent_hash = url_record_hash("https://a/"), .admitted_ms = 1764930000000});
  r.sitemap_changefreq = 3;  // a field no outcome touches
  return r;
}

RecordOutcome fetched(int64_t at_ms, const std::string& sha1 = std::string(20, 'x')) {
  RecordOutcome o;
  o.outcome = UrlOutcome::kFetched;
  o.fetched_ms = at_ms;
  o.http_status = 200;
  o.body_bytes = 5120;
  o.payload_sha1 = sha1;
  o.etag = "W/\"v1\"";
  o.last_modified = "Sat, 05 Dec 2026 10:00:00 GMT";
  return o;
}

TEST(RecordOutcome, AFetchSetsTheCaptureAndCountsOnce) {
  UrlRecord r = queued("https://a/x");
  const RecordOutcome o = fetched(1764930005000);
  apply_record_outcome(r, o);
  EXPECT_EQ(r.outcome, UrlOutcome::kFetched);
  EXPECT_EQ(r.http_status, 200);
  EXPECT_EQ(r.body_bytes, 5120u);
  EXPECT_EQ(r.fetch_count, 1u);
  EXPECT_EQ(r.last_fetched_ms, 1764930005000);
  EXPECT_EQ(r.etag, "W/\"v1\"");
  EXPECT_EQ(r.depth, 2u);
  EXPECT_EQ(r.sitemap_changefreq, 3);
  EXPECT_TRUE(has_capture(r));
  const UrlRecord once = r;
  apply_record_outcome(r, o);  // the same fetch again (a replay): no second count
  EXPECT_EQ(r, once);
}

TEST(RecordOutcome, AFailedRevisitKeepsTheCaptureAndA304TakesNewValidators) {
  UrlRecord r = queued("https://a/x");
  apply_record_outcome(r, fetched(1000));
  RecordOutcome timeout;
  timeout.outcome = UrlOutcome::kFailed;
  timeout.reason = "timeout";
  timeout.fetched_ms = 2000;
  apply_record_outcome(r, timeout);
  EXPECT_EQ(r.outcome, UrlOutcome::kFailed);
  EXPECT_EQ(r.reason, "timeout");
  EXPECT_EQ(r.http_status, 200) << "the capture is kept";
  EXPECT_EQ(r.fetch_count, 2u);
  RecordOutcome not_modified;
  not_modified.outcome = UrlOutcome::kFetched;
  not_modified.reason = "not_modified";
  not_modified.not_modified = true;
  not_modified.fetched_ms = 3000;
  not_modified.http_status = 304;
  not_modified.etag = "\"v2\"";
  apply_record_outcome(r, not_modified);
  EXPECT_EQ(r.http_status, 200);
  EXPECT_EQ(r.payload_sha1, std::string(20, 'x'));
  EXPECT_EQ(r.etag, "\"v2\"");
  EXPECT_EQ(r.last_modified, "Sat, 05 Dec 2026 10:00:00 GMT") << "not sent: kept";
}

TEST(RecordOutcome, AFirstFailureKeepsNoPartialCountsAndADropOnlyItsReason) {
  UrlRecord r = queued("https://a/x");
  RecordOutcome failed = fetched(1000);
  failed.outcome = UrlOutcome::kFailed;
  failed.reason = "body_too_large";
  failed.truncated = true;
  apply_record_outcome(r, failed);
  EXPECT_EQ(r.http_status, 0);
  EXPECT_EQ(r.body_bytes, 0u);
  EXPECT_TRUE(r.etag.empty());
  EXPECT_NE(r.flags & kRecordTruncated, 0u);
  UrlRecord d = queued("https://a/y");
  RecordOutcome dropped;
  dropped.outcome = UrlOutcome::kDropped;
  dropped.reason = "robots_disallowed";
  apply_record_outcome(d, dropped);
  UrlRecord expected = queued("https://a/y");
  expected.outcome = UrlOutcome::kDropped;
  expected.reason = "robots_disallowed";
  EXPECT_EQ(d, expected);
}

TEST(RecordOutcome, AnOperandRoundTripsAndMakesItsRecord) {
  RecordOutcome o = fetched(1764930005000);
  o.reason = "unchanged";
  o.truncated = true;
  o.not_modified = true;
  o.duplicate_of = "https://a/first";
  o.depth = 7;
  o.parent_hash = 0x0123456789abcdefULL;
  o.admitted_ms = 1764930000001;
  EXPECT_EQ(decode_record_outcome("https://a/x", encode_record_outcome(o)), o);
  EXPECT_EQ(decode_record_outcome("https://a/x", encode_record_outcome(RecordOutcome{})), RecordOutcome{});
  const UrlRecord made = record_made_by("https://a/x", o);
  EXPECT_EQ(made.url, "https://a/x");
  EXPECT_EQ(made.outcome, UrlOutcome::kQueued);
  EXPECT_EQ(made.depth, 7u);
  EXPECT_EQ(made.parent_hash, 0x0123456789abcdefULL);
  EXPECT_EQ(made.first_admitted_ms, 1764930000001);
}

TEST(RecordOutcome, ABadOperandIsRejectedNamingWhatIsWrong) {
  const std::string good = encode_record_outcome(fetched(1000));
  auto problem = [](const std::string& operand) {
    try {
      decode_record_outcome("https://a/x", operand);
    } catch (const CheckpointError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(problem(std::string(1, '\x02') + good.substr(1)).find("version 2"), std::string::npos);
  EXPECT_NE(problem(good.substr(0, 1) + '\x09' + good.substr(2)).find("outcome 9"), std::string::npos);
  EXPECT_NE(problem(good.substr(0, 2) + '\x80' + good.substr(3)).find("unknown flags"), std::string::npos);
  EXPECT_NE(problem(good + "x").find("bytes after"), std::string::npos);
  EXPECT_NE(problem(good.substr(0, good.size() - 1)).find("https://a/x"), std::string::npos);
  RecordOutcome short_digest = fetched(1000, "abc");
  EXPECT_NE(problem(encode_record_outcome(short_digest)).find("3 bytes"), std::string::npos);
}

}  // namespace
}  // namespace bloomcrawl
