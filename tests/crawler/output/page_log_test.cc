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
    PageRecord fetched{.url = "http://a.example/", .depth = 2, .outcome = "ok"};
    record_fetch(result, &fetched);
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
