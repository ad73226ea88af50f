// PageLog: a failed write throws naming the file and closes it for good (a line after a torn one
// would be glued to it), and opening cuts a record torn by a failed write or a kill.
#include "crawler/output/page_log.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/data_error.h"
#include "tests/support/faulty_file_system.h"
#include "tests/support/full_disk_file_system.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

class PageLogTest : public ::testing::Test {
 protected:
  std::string pages() const {
    std::ifstream in(dir_ / "pages.jsonl");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static PageRecord record(int i) { return {.url = "http://a.example/" + std::to_string(i), .outcome = "ok"}; }
  testing::TempDir temp_;
  const fs::path dir_ = temp_.path() / "out";
};

// Each line is the JSON object of its record's fields, in the key order of a sorted JSON object,
// the optional ones only when set; text a server sent that is not valid UTF-8 is replaced, never
// thrown, and every line parses.
TEST_F(PageLogTest, EachLineIsItsRecordAsJson) {
  PageRecord fetched{.url = "http://a.example/p?q=\"1\"",
                     .parent = "http://a.example/",
                     .depth = 3,
                     .status = 404,
                     .outcome = "ok",
                     .content_type = "text/html; charset=\xff\x01",
                     .bytes = 12345,
                     .fetch_ms = 12.345,
                     .location = "http://a.example/moved",
                     .links_found = 7,
                     .links_new = 2,
                     .fetch_time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1764633911123)),
                     .ip = "127.0.0.2",
                     .http_version = "HTTP/1.1",
                     .wire_bytes = 12500,
                     .payload_digest = "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5"};
  const PageRecord dropped{.url = "http://b.example/", .outcome = "robots_disallowed", .error = "by /robots.txt"};
  PageRecord whole_ms = dropped;
  whole_ms.fetch_ms = 40;
  {
    PageLog log(dir_, false);
    log.write_page(fetched);
    log.write_page(dropped);
    log.write_page(whole_ms);
  }
  std::vector<nlohmann::json> lines;
  std::istringstream text(pages());
  for (std::string line; std::getline(text, line);) {
    nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(line);
    std::vector<std::string> keys;
    for (const auto& item : ordered.items()) keys.push_back(item.key());
    EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end())) << line;
    lines.push_back(nlohmann::json::parse(line));
  }
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], nlohmann::json::parse(R"({"bytes":12345,"content_type":"text/html; charset=\ufffd\u0001",
      "depth":3,"fetch_ms":12.345,"fetch_time":"2025-12-02T00:05:11.123Z","http_version":"HTTP/1.1",
      "ip":"127.0.0.2","links_found":7,"links_new":2,"location":"http://a.example/moved","outcome":"ok",
      "parent":"http://a.example/","payload_digest":"sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5","status":404,
      "url":"http://a.example/p?q=\"1\"","wire_bytes":12500})"));
  EXPECT_EQ(lines[1], nlohmann::json::parse(R"({"bytes":0,"content_type":"","depth":0,"error":"by /robots.txt",
      "fetch_ms":0.0,"links_found":0,"links_new":0,"outcome":"robots_disallowed","parent":"","status":0,
      "url":"http://b.example/"})"));
  EXPECT_TRUE(lines[1]["fetch_ms"].is_number_float());
  EXPECT_TRUE(lines[2]["fetch_ms"].is_number_float()) << "a whole number of ms stays a float";
  EXPECT_EQ(lines[2]["fetch_ms"], 40.0);
}

TEST_F(PageLogTest, AFailedWriteThrowsAndNothingIsWrittenAfterIt) {
  testing::FullDiskFileSystem disk;
  PageLog log(dir_, false);
  log.write_page(record(1));
  disk.fill("pages.jsonl", 0);
  try {
    log.write_page(record(2));
    ADD_FAILURE() << "a write to a full disk succeeded";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find((dir_ / "pages.jsonl").string()), std::string::npos) << e.what();
  }
  disk.clear();
  EXPECT_THROW(log.write_page(record(3)), CheckpointError);
  const std::string text = pages();
  EXPECT_NE(text.back(), '\n') << "the failed write left half a line: the case the next open repairs";
  EXPECT_EQ(text.find("/3\""), std::string::npos);
}

// sync() is what the journal's group commit calls before it marks pages done: both files are
// fdatasync'd. A failed write leaves the file's whole lines to sync (the failed page is not done);
// a failed fdatasync names the file and, since a later one proves nothing about the pages the
// kernel dropped, the file takes nothing more, writes or syncs.
TEST_F(PageLogTest, SyncCoversBothFilesAndAFailedSyncEndsTheFile) {
  testing::FaultyFileSystem faulty;
  PageLog log(dir_, true);
  log.write_page(record(1));
  log.write_edges("http://a.example/1", {"http://a.example/2"});
  EXPECT_GT(fs::file_size(dir_ / "edges.jsonl"), 0u) << "edges are written through, as pages are";
  const int syncs = faulty.syncs();
  log.sync();
  EXPECT_EQ(faulty.syncs() - syncs, 2) << "pages.jsonl and edges.jsonl";
  faulty.fail_write(1, ENOSPC);
  EXPECT_THROW(log.write_edges("http://a.example/2", {}), CheckpointError);
  log.sync();  // the edges written before the failure are whole, and synced
  EXPECT_THROW(log.write_edges("http://a.example/3", {}), CheckpointError);
  log.write_page(record(2));
  faulty.fail_sync(1, EIO);
  try {
    log.sync();
    ADD_FAILURE() << "a failed fdatasync was not reported";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find((dir_ / "pages.jsonl").string() + ": fdatasync failed: Input/output error"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(log.write_page(record(3)), CheckpointError);
  EXPECT_THROW(log.sync(), CheckpointError);
}

TEST_F(PageLogTest, OpeningCutsATornLastRecord) {
  {
    PageLog log(dir_, false);
    log.write_page(record(1));
    log.write_page(record(2));
  }
  const std::string whole = pages();
  std::ofstream(dir_ / "pages.jsonl", std::ios::app) << R"({"url":"http://a.example/3","sta)";
  {
    PageLog log(dir_, false);
    EXPECT_EQ(pages(), whole);
    log.write_page(record(4));
  }
  const std::string text = pages();
  EXPECT_EQ(text.substr(0, whole.size()), whole);
  const std::string rest = text.substr(whole.size());
  EXPECT_EQ(rest.front(), '{') << "the next record starts a line of its own: " << text;
  EXPECT_EQ(std::count(rest.begin(), rest.end(), '\n'), 1) << text;
  EXPECT_NE(rest.find(R"("url":"http://a.example/4"})"), std::string::npos) << text;
}

TEST_F(PageLogTest, AFileOfOnlyATornRecordIsEmptied) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "pages.jsonl") << R"({"url":"http://a.exa)";
  PageLog log(dir_, false);
  EXPECT_EQ(pages(), "");
}

}  // namespace
}  // namespace bloomcrawl

namespace bloomcrawl {
namespace {

// The join fields (docs/pages-format.md): written from a fetch attempt, absent without one.
TEST(PageLogFields, FetchFieldsAreWrittenOnlyForAFetchAttempt) {
  testing::TempDir temp;
  {
    PageLog log(temp.path(), false);
    FetchResult result;
    result.fetch_time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1796083510123));
    result.remote_ip = "127.0.0.2";
    result.http_version = "2";
    result.header_bytes = 100;
    result.body_wire_bytes = 900;
    result.payload_digest = "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5";
    result.etag = "W/\"7\"";
    result.last_modified = "Tue, 01 Dec 2026 00:00:00 GMT";
    PageRecord fetched{.url = "http://a.example/", .depth = 2, .outcome = "ok"};
    record_fetch(result, &fetched);
    // The validators go to the URL's record (crawl_records.h), not to pages.jsonl.
    EXPECT_EQ(fetched.etag, result.etag);
    EXPECT_EQ(fetched.last_modified, result.last_modified);
    log.write_page(fetched);
    log.write_page({.url = "http://a.example/x", .outcome = "robots_disallowed"});
  }
  std::ifstream in(temp.path() / "pages.jsonl");
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  const nlohmann::json fetched = nlohmann::json::parse(line);
  EXPECT_EQ(fetched["fetch_time"], "2026-12-01T00:05:10.123Z");
  EXPECT_EQ(fetched["ip"], "127.0.0.2");
  EXPECT_EQ(fetched["http_version"], "2");
  EXPECT_EQ(fetched["wire_bytes"], 1000);
  EXPECT_EQ(fetched["payload_digest"], "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
  EXPECT_EQ(fetched["depth"], 2);
  ASSERT_TRUE(std::getline(in, line));
  const nlohmann::json refused = nlohmann::json::parse(line);
  for (const char* field : {"fetch_time", "ip", "http_version", "wire_bytes", "payload_digest"}) {
    EXPECT_FALSE(refused.contains(field)) << field << " in " << line;
  }
}

}  // namespace
}  // namespace bloomcrawl
