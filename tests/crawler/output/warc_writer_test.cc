// WarcWriter's files are read back by warcio.js (an independent reader, installed by
// scripts/install-test-tools.sh) and every record is checked against what was written.
#include "crawler/output/warc_writer.h"

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/data_error.h"
#include "crawler/fetch/payload_digest.h"
#include "crawler/output/cdxj.h"
#include "tests/support/faulty_file_system.h"
#include "tests/support/full_disk_file_system.h"
#include "tests/support/gzip.h"
#include "tests/support/warcio.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> warc_files(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().string().ends_with(".warc.gz")) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// An exchange as a test holds it; exchange() views it for the writer. Odd pages come gzip-encoded
// and chunked, as a server sends them, and are archived so.
struct TestExchange {
  std::string url;
  std::string request_head;
  std::string response_head;
  std::string body;     // as received
  std::string payload;  // de-chunked, still gzip-encoded
  WarcExchange exchange() const {
    payload_digest = sha1_base32_digest(payload);
    return {.url = url,
            .remote_ip = "127.0.0.2",
            .date = std::chrono::system_clock::now(),
            .request_head = request_head,
            .response_head = response_head,
            .body = body,
            .payload_digest = payload_digest,
            .status = 200,
            .content_type = "text/html; charset=utf-8"};
  }
  mutable std::string payload_digest;
};

// `data` in two chunks, one with an extension, and a trailer field.
std::string chunked(const std::string& data) {
  char size[32];
  const std::string half = data.substr(0, data.size() / 2);
  std::snprintf(size, sizeof size, "%zx", half.size());
  std::string out = std::string(size) + "\r\n" + half + "\r\n";
  std::snprintf(size, sizeof size, "%zx", data.size() - half.size());
  out += std::string(size) + ";ext=1\r\n" + data.substr(half.size()) + "\r\n0\r\nX-Trailer: t\r\n\r\n";
  return out;
}

TestExchange test_exchange(int i) {
  TestExchange x;
  x.url = "http://www.Example.com:8080/page/" + std::to_string(i) + "?b=2&a=" + std::to_string(i);
  x.request_head = "GET /page/" + std::to_string(i) + " HTTP/1.1\r\nHost: 127.0.0.2:8080\r\nUser-Agent: t\r\n\r\n";
  const std::string html = "<html>page " + std::to_string(i) + std::string(size_t(i) * 100, 'x') + "</html>";
  if (i % 2 == 1) {
    x.payload = testing::gzip(html);
    x.body = chunked(x.payload);
    x.response_head =
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Encoding: gzip\r\n"
        "Transfer-Encoding: chunked\r\n\r\n";
  } else {
    x.payload = x.body = html;
    x.response_head =
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: " + std::to_string(html.size()) +
        "\r\n\r\n";
  }
  return x;
}

void write_test_exchange(WarcWriter& writer, int i) { writer.write(test_exchange(i).exchange()); }

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
    for (int i = 0; i < kPages; ++i) write_test_exchange(writer, i);
  }
  std::vector<nlohmann::json> records = testing::read_with_warcio(warc_files(dir_));
  ASSERT_EQ(records.size(), size_t(1 + 2 * kPages));  // warcinfo, then response + request each
  EXPECT_EQ(records[0]["type"], "warcinfo");
  std::map<std::string, nlohmann::json> responses;
  for (size_t r = 1; r < records.size(); r += 2) {
    const nlohmann::json& resp = records[r];
    const nlohmann::json& req = records[r + 1];
    int i = int(r / 2);
    const TestExchange x = test_exchange(i);
    EXPECT_EQ(resp["type"], "response");
    EXPECT_EQ(resp["target"], x.url);
    EXPECT_EQ(resp["ip"], "127.0.0.2");
    EXPECT_EQ(resp["status"], 200);
    // Stored as received: the head unchanged, the body still encoded (and chunked, for odd pages).
    EXPECT_EQ(resp["payload_base64"], testing::base64(x.body));
    EXPECT_EQ(resp["http_headers"].value("content-encoding", ""), i % 2 == 1 ? "gzip" : "") << resp.dump();
    EXPECT_EQ(resp["payload_digest"], sha1_base32_digest(x.payload));
    EXPECT_EQ(resp["block_length"], x.response_head.size() + x.body.size());
    for (const nlohmann::json* r : {&resp, &req}) {
      EXPECT_EQ((*r)["block_digest"], (*r)["block_digest_computed"]) << r->dump();
      EXPECT_EQ((*r)["content_length"], (*r)["block_length"]);
    }
    EXPECT_EQ(resp["payload_digest"], resp["payload_digest_computed"]) << resp.dump();
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
    for (int i = 0; i < 6; ++i) write_test_exchange(writer, i);
    EXPECT_GE(writer.files_completed(), 2u);
  }
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    ++files;
    EXPECT_NE(e.path().extension(), ".open") << "no file is left half-written: " << e.path();
  }
  EXPECT_GE(files, 6u);  // each WARC file with its index
  std::vector<nlohmann::json> records = testing::read_with_warcio(warc_files(dir_));
  size_t responses = 0;
  for (const auto& r : records) responses += r["type"] == "response";
  EXPECT_EQ(responses, 6u);
}

// Writers one after the other in one process on one directory (a crawl resumed in the process
// that ran it): their files share the second, the pid and serial 0, and must still not replace
// each other. Three writers, each file kept with its own records.
TEST_F(WarcWriterTest, WritersOfOneProcessInOneSecondKeepEachOthersFiles) {
  for (int i = 0; i < 3; ++i) {
    WarcWriter writer({.directory = dir_});
    write_test_exchange(writer, i);
  }
  EXPECT_EQ(warc_files(dir_).size(), 3u);
  size_t responses = 0;
  for (const auto& r : testing::read_with_warcio(warc_files(dir_))) responses += r["type"] == "response";
  EXPECT_EQ(responses, 3u);
}

// A full disk part-way through an exchange: the write throws naming the file, the torn exchange
// is cut off and the file completed, so every exchange archived before it still reads back.
TEST_F(WarcWriterTest, AFailedWriteKeepsTheWholeExchangesReadable) {
  testing::FullDiskFileSystem disk;
  {
    WarcWriter writer({.directory = dir_});
    for (int i = 0; i < 3; ++i) write_test_exchange(writer, i);
    disk.fill(dir_.string(), 0);  // the next exchange's write stores half of its bytes
    try {
      write_test_exchange(writer, 3);
      ADD_FAILURE() << "a write to a full disk succeeded";
    } catch (const CheckpointError& e) {
      EXPECT_NE(std::string(e.what()).find(dir_.string()), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
    }
    disk.clear();
    EXPECT_THROW(write_test_exchange(writer, 4), CheckpointError) << "nothing is written after a failure";
    EXPECT_EQ(writer.records_written(), 7u);
  }
  for (const auto& e : fs::directory_iterator(dir_)) EXPECT_NE(e.path().extension(), ".open") << e.path();
  std::vector<nlohmann::json> records = testing::read_with_warcio(warc_files(dir_));
  ASSERT_EQ(records.size(), 7u);  // warcinfo and three whole exchanges
  EXPECT_EQ(records[5]["target"], test_exchange(2).url);
}

// A failed fdatasync (the journal's group commit asks for it): the error names the file, and since
// a later sync could succeed without the dropped pages, the file is never completed and every later
// write, sync and close fails too: the crawl stops with exit 1 instead of renaming it whole.
TEST_F(WarcWriterTest, AFailedSyncFailsTheWriterAndLeavesTheFileOpen) {
  testing::FaultyFileSystem faulty;
  WarcWriter writer({.directory = dir_});
  write_test_exchange(writer, 0);
  writer.sync();
  writer.sync();  // nothing new: no fdatasync
  EXPECT_EQ(faulty.syncs(), 1);
  write_test_exchange(writer, 1);
  faulty.fail_sync(1, EIO);
  try {
    writer.sync();
    ADD_FAILURE() << "a failed fdatasync was reported as durable";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find(".warc.gz.open: fdatasync failed: Input/output error"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(write_test_exchange(writer, 2), CheckpointError);
  EXPECT_THROW(writer.sync(), CheckpointError);
  try {
    writer.close();
    ADD_FAILURE() << "a file whose sync failed was completed";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("left incomplete: "), std::string::npos) << e.what();
  }
  EXPECT_EQ(writer.files_completed(), 0u);
  EXPECT_TRUE(warc_files(dir_).empty());
}

// The index beside each file is the one warcio's own indexer makes of it, line for line.
TEST_F(WarcWriterTest, IndexMatchesWarciosIndexer) {
  {
    WarcWriter writer({.directory = dir_, .max_file_bytes = 3000});
    for (int i = 0; i < 8; ++i) write_test_exchange(writer, i);
  }
  const std::vector<fs::path> warcs = warc_files(dir_);
  EXPECT_GT(warcs.size(), 1u);
  std::vector<std::string> ours;
  for (const fs::path& warc : warcs) {
    const std::string name = warc.filename().string();
    const fs::path index = dir_ / (name.substr(0, name.size() - 8) + ".cdxj");
    ASSERT_TRUE(fs::exists(index)) << index;
    const std::vector<std::string> lines = testing::lines_of(testing::read_text(index));
    EXPECT_TRUE(std::is_sorted(lines.begin(), lines.end())) << index;
    ours.insert(ours.end(), lines.begin(), lines.end());
  }
  std::vector<std::string> theirs = testing::lines_of(testing::warcio_cdxj(warcs));  // lines name their file
  std::sort(ours.begin(), ours.end());
  std::sort(theirs.begin(), theirs.end());
  EXPECT_EQ(ours, theirs);
  EXPECT_EQ(ours.size(), 8u);
}

// An index larger than the batches it is written in (64 KiB) comes out whole: every line once,
// sorted, each naming its record.
TEST_F(WarcWriterTest, ALargeIndexIsWrittenWhole) {
  constexpr int kExchanges = 600;  // ~200 bytes of index each
  {
    WarcWriter writer({.directory = dir_});
    for (int i = 0; i < kExchanges; ++i) write_test_exchange(writer, i % 2 == 0 ? i : 1);
  }
  const std::vector<fs::path> warcs = warc_files(dir_);
  ASSERT_EQ(warcs.size(), 1u);
  const std::string name = warcs[0].filename().string();
  const std::string index = testing::read_text(dir_ / (name.substr(0, name.size() - 8) + ".cdxj"));
  EXPECT_GT(index.size(), size_t(64 << 10));
  const std::vector<std::string> lines = testing::lines_of(index);
  EXPECT_EQ(lines.size(), size_t(kExchanges));
  EXPECT_TRUE(std::is_sorted(lines.begin(), lines.end()));
  std::map<std::string, int> urls;
  for (const std::string& line : lines) {
    const nlohmann::json fields = nlohmann::json::parse(line.substr(line.find('{')));
    EXPECT_EQ(fields["filename"], name);
    ++urls[fields["url"].get<std::string>()];
  }
  EXPECT_EQ(urls.size(), size_t(kExchanges / 2 + 1));
  EXPECT_EQ(urls[test_exchange(1).url], kExchanges / 2);
}

// The fetcher keeps a body received as is once, in `body` (fetcher.h); the record holds it.
TEST(WarcFormat, ExchangeHoldsTheBodyAsReceived) {
  FetchResult result;
  result.body = "<html>as received</html>";
  EXPECT_EQ(warc_exchange_of(result).body.data(), result.body.data());
  result.raw_body = "18\r\n<html>as received</html>\r\n0\r\n\r\n";
  EXPECT_EQ(warc_exchange_of(result).body.data(), result.raw_body.data());
}

TEST(WarcFormat, Sha1DigestIsBase32OfSha1) {
  // SHA-1("abc") = a9993e364706816aba3e25717850c26c9cd0d89d
  EXPECT_EQ(sha1_base32_digest("abc"), "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
}

TEST(WarcFormat, UrlKeyIsWarciosSurt) {
  EXPECT_EQ(cdxj_urlkey("http://www2.Example.com/A/b?z=1&a=2"), "com,example)/a/b?a=2&z=1");
  EXPECT_EQ(cdxj_urlkey("https://sub.example.org:8443"), "org,example,sub:8443)/");
  EXPECT_EQ(cdxj_urlkey("http://127.0.0.1:8080/x?"), "1,0,0,127:8080)/x");
  EXPECT_EQ(cdxj_urlkey("http://a..b./"), ",b,,a)/") << "empty labels kept in place";
  EXPECT_EQ(cdxj_urlkey("http://.a/"), "a,)/");
  EXPECT_EQ(cdxj_urlkey("http:///x"), ")/x");
}

// Values that are not plain ASCII are escaped as JSON, invalid UTF-8 replaced, so every line parses.
TEST(WarcFormat, IndexLineIsJsonWhateverTheServerSent) {
  const std::string url = "http://example.com/a\\b\"c";
  const std::string mime = std::string("text/\x01h\xfftml") + "; charset=x";
  std::string line = cdxj_line_start(url, "2026-12-02T00:05:10.123Z", mime, 200, "sha1:ABC");
  cdxj_finish_line(10, 20, "f\"1.warc.gz", &line);
  ASSERT_TRUE(line.ends_with("}\n"));
  EXPECT_TRUE(line.starts_with("com,example)/a\\b\"c 20261202000510 {"));
  const nlohmann::json fields = nlohmann::json::parse(line.substr(line.find('{')));
  EXPECT_EQ(fields["url"], url);
  EXPECT_EQ(fields["mime"], "text/\x01h\xef\xbf\xbdtml");
  EXPECT_EQ(fields["status"], "200");
  EXPECT_EQ(fields["digest"], "ABC");
  EXPECT_EQ(fields["length"], "10");
  EXPECT_EQ(fields["offset"], "20");
  EXPECT_EQ(fields["filename"], "f\"1.warc.gz");
}

}  // namespace
}  // namespace bloomcrawl
