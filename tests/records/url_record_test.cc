// The URL record's value format (docs/records.md, "Value format, version 3"), its key and its
// JSON line: every field round-trips, absent fields cost nothing, and every kind of damage is
// refused naming what is wrong.
#include "records/url_record.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "base/data_error.h"

namespace bloomcrawl {
namespace {

UrlRecord full_record() {
  UrlRecord r;
  r.url = "https://www.example.com/news/12?page=3";
  r.outcome = UrlOutcome::kFetched;
  r.http_status = 200;
  r.depth = 3;
  r.parent_hash = 0xfedcba9876543210ULL;
  r.first_admitted_ms = 1764930000000;
  r.last_fetched_ms = 1764930001234;
  r.fetch_count = 2;
  r.body_bytes = 123456789012ULL;
  r.payload_sha1 = std::string(20, '\x9c');
  r.etag = "\"abc\"";
  r.last_modified = "Sat, 05 Dec 2026 10:00:00 GMT";
  r.next_fetch_ms = 1765000000000;
  r.reason = "robots";
  r.flags = kRecordTruncated | kRecordRescuedFalsePositive;
  r.duplicate_of = "https://www.example.com/news/12";
  r.sitemap_lastmod_s = 1764900000;
  r.sitemap_changefreq = 3;  // daily
  r.visits = {{3600, false}, {5040, true}, {0, false}};
  return r;
}

std::string decode_error(std::string_view value) {
  try {
    decode_url_record("https://x/", value);
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(UrlRecordTest, EveryFieldRoundTrips) {
  const UrlRecord r = full_record();
  EXPECT_EQ(decode_url_record(r.url, encode_url_record(r)), r);
}

TEST(UrlRecordTest, EachFieldAloneRoundTripsAndAbsentFieldsCostNothing) {
  UrlRecord empty;
  empty.url = "https://a/";
  EXPECT_EQ(encode_url_record(empty).size(), 3u);  // version, outcome, no present fields
  EXPECT_EQ(decode_url_record(empty.url, encode_url_record(empty)), empty);
  const UrlRecord full = full_record();
  // Each field on its own: a wrong bit or order for any one of them would break its round trip.
  const std::vector<void (*)(UrlRecord&, const UrlRecord&)> setters = {
      [](UrlRecord& r, const UrlRecord& f) { r.http_status = f.http_status; },
      [](UrlRecord& r, const UrlRecord& f) { r.depth = f.depth; },
      [](UrlRecord& r, const UrlRecord& f) { r.parent_hash = f.parent_hash; },
      [](UrlRecord& r, const UrlRecord& f) { r.first_admitted_ms = f.first_admitted_ms; },
      [](UrlRecord& r, const UrlRecord& f) { r.last_fetched_ms = f.last_fetched_ms; },
      [](UrlRecord& r, const UrlRecord& f) { r.fetch_count = f.fetch_count; },
      [](UrlRecord& r, const UrlRecord& f) { r.body_bytes = f.body_bytes; },
      [](UrlRecord& r, const UrlRecord& f) { r.payload_sha1 = f.payload_sha1; },
      [](UrlRecord& r, const UrlRecord& f) { r.etag = f.etag; },
      [](UrlRecord& r, const UrlRecord& f) { r.last_modified = f.last_modified; },
      [](UrlRecord& r, const UrlRecord& f) { r.next_fetch_ms = f.next_fetch_ms; },
      [](UrlRecord& r, const UrlRecord& f) { r.reason = f.reason; },
      [](UrlRecord& r, const UrlRecord& f) { r.flags = f.flags; },
      [](UrlRecord& r, const UrlRecord& f) { r.duplicate_of = f.duplicate_of; },
      [](UrlRecord& r, const UrlRecord& f) { r.sitemap_lastmod_s = f.sitemap_lastmod_s; },
      [](UrlRecord& r, const UrlRecord& f) { r.sitemap_changefreq = f.sitemap_changefreq; },
      [](UrlRecord& r, const UrlRecord& f) { r.visits = f.visits; },
  };
  for (size_t i = 0; i < setters.size(); ++i) {
    UrlRecord r = empty;
    setters[i](r, full);
    ASSERT_NE(r, empty) << "field " << i;
    EXPECT_EQ(decode_url_record(r.url, encode_url_record(r)), r) << "field " << i;
  }
}

TEST(UrlRecordTest, AnAdmittedRecordIsSmall) {
  UrlRecord r;
  r.url = "https://a/";
  r.depth = 2;
  r.parent_hash = 0x1234567890abcdefULL;
  r.first_admitted_ms = 1764930000000;
  EXPECT_EQ(encode_url_record(r).size(), 3u + 1 + 8 + 6);
}

TEST(UrlRecordTest, DamageIsRefusedNamingWhatIsWrong) {
  const std::string good = encode_url_record(full_record());
  EXPECT_NE(decode_error("").find("truncated before the version"), std::string::npos);
  std::string other_version = good;
  other_version[0] = 4;
  EXPECT_NE(decode_error(other_version).find("version 4, not 1 to 3"), std::string::npos);
  // Version 1 has no field 13 (duplicate_of), version 2 no fields 14 to 16 (the sitemap hints, visits):
  // a reader of those versions would refuse them, and so do we.
  for (const char older : {'\1', '\2'}) {
    std::string old = good;
    old[0] = older;
    EXPECT_NE(decode_error(old).find("unknown fields"), std::string::npos) << int(older);
  }
  // A record is written as the lowest version that holds its fields.
  UrlRecord r = full_record();
  EXPECT_EQ(good[0], 3);
  r.sitemap_lastmod_s = 0;
  r.visits.clear();
  EXPECT_EQ(encode_url_record(r)[0], 3) << "the changefreq is version 3's";
  r.sitemap_changefreq = 0;
  EXPECT_EQ(encode_url_record(r)[0], 2);
  r.duplicate_of.clear();
  EXPECT_EQ(encode_url_record(r)[0], 1) << "a record without version 2's field is written as version 1";
  r.sitemap_changefreq = 8;  // past "never"
  EXPECT_NE(decode_error(encode_url_record(r)).find("sitemap changefreq 8 is out of range"), std::string::npos);
  // More visits than a record keeps: refused both ways.
  r = full_record();
  r.visits.assign(kRecordVisits + 1, {60, true});
  EXPECT_THROW(encode_url_record(r), CheckpointError);
  r.visits.resize(kRecordVisits);
  std::string seventeen = encode_url_record(r);
  seventeen[seventeen.size() - 1 - kRecordVisits] = char(kRecordVisits + 1);  // the count before 16 one-byte visits
  EXPECT_NE(decode_error(seventeen + char(121)).find("visit count 17 is out of range"), std::string::npos);
  for (const char outcome : {'\0', '\5'}) {
    std::string bad = good;
    bad[1] = outcome;
    EXPECT_NE(decode_error(bad).find("not 1 to 4"), std::string::npos);
  }
  EXPECT_NE(decode_error(std::string("\x01\x01\x80\x40", 4)).find("unknown fields"), std::string::npos);
  EXPECT_NE(decode_error(good + "x").find("bytes after the last field"), std::string::npos);
  // Every truncation of a good value is refused (none decodes to a shorter record).
  for (size_t n = 0; n < good.size(); ++n) {
    const std::string error = decode_error(good.substr(0, n));
    EXPECT_NE(error.find("https://x/: URL record: "), std::string::npos) << n << ": " << error;
  }
  // A number beyond its field: HTTP status 65536.
  EXPECT_NE(decode_error(std::string("\x01\x02\x01\x80\x80\x04", 6)).find("HTTP status 65536 is out of range"),
            std::string::npos);
  // A string whose length runs past the end.
  EXPECT_NE(decode_error(std::string("\x01\x04\x80\x10\x05"
                                     "ab",
                                     7))
                .find("reason runs past the end"),
            std::string::npos);
}

TEST(UrlRecordTest, APayloadDigestThatIsNoSha1IsNotWritten) {
  UrlRecord r = full_record();
  r.payload_sha1 = "short";
  EXPECT_THROW(encode_url_record(r), CheckpointError);
}

TEST(UrlRecordTest, KeysKeepAHostsRecordsTogetherAndHoldTheUrl) {
  const std::string a1 = record_key("https://a.example/x");
  const std::string a2 = record_key("https://a.example:443/y?z#f");
  const std::string a3 = record_key("https://a.example?q");
  const std::string b = record_key("https://b.example/x");
  EXPECT_EQ(a1.substr(0, 8), record_key("https://a.example/other").substr(0, 8));
  EXPECT_EQ(a1.substr(0, 8), a3.substr(0, 8));
  EXPECT_NE(a1.substr(0, 8), a2.substr(0, 8)) << "the port is part of the authority";
  EXPECT_NE(a1.substr(0, 8), b.substr(0, 8));
  EXPECT_EQ(url_of_record_key(a2), "https://a.example:443/y?z#f");
  EXPECT_THROW(url_of_record_key("short"), CheckpointError);
}

TEST(UrlRecordTest, TheJsonLineIsValidJsonWithEveryField) {
  UrlRecord r = full_record();
  r.etag = std::string("\"q\\\n\x01\xff", 6) + "\xc3\xa9";  // quote, backslash, controls, a bad byte, é
  const std::string line = url_record_json(r);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  const nlohmann::json json = nlohmann::json::parse(line);
  EXPECT_EQ(json["url"], r.url);
  EXPECT_EQ(json["admitted"], true);
  EXPECT_EQ(json["outcome"], "fetched");
  EXPECT_EQ(json["http_status"], 200);
  EXPECT_EQ(json["depth"], 3);
  EXPECT_EQ(json["parent_hash"], "fedcba9876543210");
  EXPECT_EQ(json["first_admitted_ms"], 1764930000000);
  EXPECT_EQ(json["last_fetched_ms"], 1764930001234);
  EXPECT_EQ(json["fetch_count"], 2);
  EXPECT_EQ(json["body_bytes"], 123456789012ULL);
  std::string sha1_hex;
  for (int i = 0; i < 20; ++i) sha1_hex += "9c";
  EXPECT_EQ(json["payload_sha1"], sha1_hex);
  EXPECT_EQ(json["etag"], std::string("\"q\\\n\x01\xc3\xbf", 7) + "\xc3\xa9");  // the bad byte as U+00FF
  EXPECT_EQ(json["last_modified"], r.last_modified);
  EXPECT_EQ(json["next_fetch_ms"], 1765000000000);
  EXPECT_EQ(json["reason"], "robots");
  EXPECT_EQ(json["flags"], 3);
  EXPECT_EQ(json["duplicate_of"], r.duplicate_of);
  EXPECT_EQ(json["sitemap_lastmod_s"], 1764900000);
  EXPECT_EQ(json["sitemap_changefreq"], "daily");
  EXPECT_EQ(json["visits"], nlohmann::json::parse(R"([{"interval_s":3600,"changed":false},
      {"interval_s":5040,"changed":true},{"interval_s":0,"changed":false}])"));
  EXPECT_EQ(json.size(), 20u);

  UrlRecord seed;
  seed.url = "https://s/";
  const nlohmann::json seed_json = nlohmann::json::parse(url_record_json(seed));
  EXPECT_EQ(seed_json["parent_hash"], "");
  EXPECT_EQ(seed_json["payload_sha1"], "");
  EXPECT_EQ(seed_json["outcome"], "queued");

  EXPECT_EQ(nlohmann::json::parse(url_not_admitted_json("https://n/\"")),
            (nlohmann::json{{"url", "https://n/\""}, {"admitted", false}}));
}

}  // namespace
}  // namespace bloomcrawl
