// WarcWriter's files are read back by warcio.js (an independent reader, installed by
// scripts/install-test-tools.sh) and every record is checked against what was written.
#include "crawler/output/warc_writer.h"

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <nlohmann/json.hpp>

#include "base/data_error.h"
#include "tests/support/full_disk_file_system.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

std::string base64(const std::string& s) {
  std::string out(4 * ((s.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(s.data()), int(s.size()));
  out.resize(size_t(n));
  return out;
}

// Every record of every *.warc.gz in `dir`, as warcio.js reads them.
std::vector<nlohmann::json> read_with_warcio(const fs::path& dir) {
  const fs::path warcio = fs::path(BLOOMCRAWL_SOURCE_DIR) / "build/node/node_modules/warcio";
  EXPECT_TRUE(fs::exists(warcio / "dist/index.js")) << "run scripts/install-test-tools.sh";
  std::string cmd = "WARCIO_DIR='" + warcio.string() + "' node '" BLOOMCRAWL_SOURCE_DIR "/tests/support/warc_dump.mjs'";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) cmd += " '" + f.string() + "'";
  cmd += " 2>&1";
  std::vector<nlohmann::json> records;
  FILE* p = popen(cmd.c_str(), "r");
  EXPECT_NE(p, nullptr);
  std::string out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  EXPECT_EQ(pclose(p), 0) << out;
  size_t pos = 0;
  while (pos < out.size()) {
    size_t end = out.find('\n', pos);
    if (end == std::string::npos) end = out.size();
    if (end > pos) records.push_back(nlohmann::json::parse(out.substr(pos, end - pos)));
    pos = end + 1;
  }
  return records;
}

WarcExchange exchange(int i) {
  WarcExchange x;
  x.url = "http://127.0.0.2:8080/page/" + std::to_string(i);
  x.remote_ip = "127.0.0.2";
  x.date = std::chrono::system_clock::now();
  x.request_head = "GET /page/" + std::to_string(i) + " HTTP/1.1\r\nHost: 127.0.0.2:8080\r\nUser-Agent: t\r\n\r\n";
  x.response_head =
      "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: 12\r\n\r\n";
  x.payload = "<html>page " + std::to_string(i) + std::string(size_t(i) * 100, 'x') + "</html>";
  return x;
}

class WarcWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("warc_test_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(WarcWriterTest, EveryRecordReadsBackWithWarcio) {
  const int kPages = 5;
  {
    WarcWriter writer({.directory = dir_});
    for (int i = 0; i < kPages; ++i) writer.write(exchange(i));
  }
  std::vector<nlohmann::json> records = read_with_warcio(dir_);
  ASSERT_EQ(records.size(), size_t(1 + 2 * kPages));  // warcinfo, then response + request each
  EXPECT_EQ(records[0]["type"], "warcinfo");
  std::map<std::string, nlohmann::json> responses;
  for (size_t r = 1; r < records.size(); r += 2) {
    const nlohmann::json& resp = records[r];
    const nlohmann::json& req = records[r + 1];
    int i = int(r / 2);
    WarcExchange x = exchange(i);
    EXPECT_EQ(resp["type"], "response");
    EXPECT_EQ(resp["target"], x.url);
    EXPECT_EQ(resp["ip"], "127.0.0.2");
    EXPECT_EQ(resp["status"], 200);
    EXPECT_EQ(resp["payload_digest"], warc_sha1_digest(x.payload));
    EXPECT_EQ(resp["payload_base64"], base64(x.payload));
    // The stored payload is decoded, so the archived head says so.
    EXPECT_FALSE(resp["http_headers"].contains("content-encoding") ||
                 resp["http_headers"].contains("Content-Encoding"));
    EXPECT_EQ(req["type"], "request");
    EXPECT_EQ(req["method"], "GET");
    EXPECT_EQ(req["target"], x.url);
    EXPECT_EQ(req["concurrent_to"], resp["id"]);
    EXPECT_NE(req["id"], resp["id"]);
    EXPECT_TRUE(responses.emplace(resp["id"].get<std::string>(), resp).second) << "record ids are unique";
  }
}

TEST_F(WarcWriterTest, RotatesAtTheSizeLimitAndCompletesFiles) {
  {
    WarcWriter writer({.directory = dir_, .max_file_bytes = 600});
    for (int i = 0; i < 6; ++i) writer.write(exchange(i));
    EXPECT_GE(writer.files_completed(), 2u);
  }
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    ++files;
    EXPECT_EQ(e.path().extension(), ".gz") << "no file is left half-written: " << e.path();
  }
  EXPECT_GE(files, 3u);
  std::vector<nlohmann::json> records = read_with_warcio(dir_);
  size_t responses = 0;
  for (const auto& r : records) responses += r["type"] == "response";
  EXPECT_EQ(responses, 6u);
}

// A full disk part-way through an exchange: the write throws naming the file, the torn exchange
// is cut off and the file completed, so every exchange archived before it still reads back.
TEST_F(WarcWriterTest, AFailedWriteKeepsTheWholeExchangesReadable) {
  testing::FullDiskFileSystem disk;
  {
    WarcWriter writer({.directory = dir_});
    for (int i = 0; i < 3; ++i) writer.write(exchange(i));
    disk.fill(dir_.string(), 1);  // the response record of the next exchange fits, its request does not
    try {
      writer.write(exchange(3));
      ADD_FAILURE() << "a write to a full disk succeeded";
    } catch (const CheckpointError& e) {
      EXPECT_NE(std::string(e.what()).find(dir_.string()), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
    }
    disk.clear();
    EXPECT_THROW(writer.write(exchange(4)), CheckpointError) << "nothing is written after a failure";
    EXPECT_EQ(writer.records_written(), 7u);
  }
  for (const auto& e : fs::directory_iterator(dir_)) EXPECT_EQ(e.path().extension(), ".gz") << e.path();
  std::vector<nlohmann::json> records = read_with_warcio(dir_);
  ASSERT_EQ(records.size(), 7u);  // warcinfo and three whole exchanges
  EXPECT_EQ(records[5]["target"], exchange(2).url);
}

TEST(WarcFormat, Sha1DigestIsBase32OfSha1) {
  // SHA-1("abc") = a9993e364706816aba3e25717850c26c9cd0d89d
  EXPECT_EQ(warc_sha1_digest("abc"), "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
}

TEST(WarcFormat, ResponseHeadDropsEncodingsAndSetsLength) {
  std::string head = warc_response_head(
      "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\ncontent-encoding: br\r\n\r\n", 42);
  EXPECT_EQ(head, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 42\r\n\r\n");
}

}  // namespace
}  // namespace bloomcrawl
