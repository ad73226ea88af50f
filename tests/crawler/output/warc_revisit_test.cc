// WARC revisit records (docs/recrawl.md "WARC revisit records"), read back by warcio.js and indexed
// as warcio's own indexer indexes them.
#include "crawler/output/warc_revisit.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "crawler/fetch/payload_digest.h"
#include "crawler/output/warc_writer.h"
#include "tests/support/warcio.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

constexpr char kUrl[] = "http://www.example.com/news?b=2&a=1";
constexpr char kBody[] = "<html>unchanged news</html>";
constexpr char kOriginalDate[] = "2026-11-28T09:15:00.250Z";

// The result of a revisit as the fetcher reports it with capture_headers on.
FetchResult revisit_result(FetchOutcome outcome, long status, const std::string& response_head,
                           const std::string& body) {
  FetchResult result;
  result.url = kUrl;
  result.outcome = outcome;
  result.status = status;
  result.remote_ip = "127.0.0.3";
  result.fetch_time = std::chrono::system_clock::now();
  result.request_headers = "GET /news?b=2&a=1 HTTP/1.1\r\nHost: www.example.com\r\nIf-None-Match: W/\"n1\"\r\n\r\n";
  result.response_headers = response_head;
  result.body = body;
  result.content_accepted = !body.empty();
  result.payload_digest = body.empty() ? "" : sha1_base32_digest(body);
  return result;
}

class WarcRevisitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("warc_revisit_test_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::vector<fs::path> warc_files() const {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir_)) {
      if (e.path().string().ends_with(".warc.gz")) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    return files;
  }
  fs::path dir_;
  const std::string original_digest_ = sha1_base32_digest(kBody);
  const OriginalCapture original_{kUrl, kOriginalDate, original_digest_};
};

TEST_F(WarcRevisitTest, NotModifiedAndIdenticalPayloadAreRevisitRecordsWarcioReads) {
  const std::string head_304 = "HTTP/1.1 304 Not Modified\r\nETag: W/\"n1\"\r\n\r\n";
  const std::string head_200 =
      "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " + std::to_string(sizeof kBody - 1) + "\r\n\r\n";
  const FetchResult not_modified = revisit_result(FetchOutcome::kNotModified, 304, head_304, "");
  const FetchResult identical = revisit_result(FetchOutcome::kOk, 200, head_200, kBody);
  {
    WarcWriter writer({.directory = dir_});
    for (const FetchResult* result : {&not_modified, &identical}) {
      std::optional<WarcExchange> revisit = warc_revisit_of(*result, original_);
      ASSERT_TRUE(revisit.has_value());
      writer.write(*revisit);
    }
  }
  std::vector<nlohmann::json> records = testing::read_with_warcio(warc_files());
  ASSERT_EQ(records.size(), 5u);  // warcinfo, then revisit + request twice
  const struct {
    const char* profile;
    long status;
    const std::string& head;
    const char* truncated;
  } expected[] = {{"http://netpreserve.org/warc/1.1/revisit/server-not-modified", 304, head_304, nullptr},
                  {"http://netpreserve.org/warc/1.1/revisit/identical-payload-digest", 200, head_200, "length"}};
  for (size_t i = 0; i < 2; ++i) {
    const nlohmann::json& revisit = records[1 + 2 * i];
    const nlohmann::json& request = records[2 + 2 * i];
    EXPECT_EQ(revisit["type"], "revisit") << revisit.dump();
    EXPECT_EQ(revisit["profile"], expected[i].profile);
    EXPECT_EQ(revisit["target"], kUrl);
    EXPECT_EQ(revisit["refers_to_uri"], kUrl);
    EXPECT_EQ(revisit["refers_to_date"], kOriginalDate);
    EXPECT_EQ(revisit["payload_digest"], original_digest_);
    EXPECT_EQ(revisit["status"], expected[i].status);
    if (expected[i].truncated != nullptr) {
      EXPECT_EQ(revisit["truncated"], expected[i].truncated);
    } else {
      EXPECT_TRUE(revisit["truncated"].is_null()) << revisit.dump();
    }
    // The block is the response head and nothing else.
    EXPECT_EQ(revisit["block_length"], expected[i].head.size());
    EXPECT_EQ(revisit["content_length"], expected[i].head.size());
    EXPECT_EQ(revisit["block_digest"], revisit["block_digest_computed"]);
    EXPECT_EQ(revisit["payload_base64"], "");
    EXPECT_EQ(request["type"], "request");
    EXPECT_EQ(request["concurrent_to"], revisit["id"]);
  }
}

TEST_F(WarcRevisitTest, RevisitsAreIndexedAsWarciosIndexerIndexesThem) {
  const FetchResult not_modified =
      revisit_result(FetchOutcome::kNotModified, 304, "HTTP/1.1 304 Not Modified\r\n\r\n", "");
  {
    WarcWriter writer({.directory = dir_});
    writer.write(*warc_revisit_of(not_modified, original_));
  }
  const std::vector<fs::path> warcs = warc_files();
  ASSERT_EQ(warcs.size(), 1u);
  const std::string name = warcs[0].filename().string();
  const std::vector<std::string> ours =
      testing::lines_of(testing::read_text(dir_ / (name.substr(0, name.size() - 8) + ".cdxj")));
  ASSERT_EQ(ours.size(), 1u);
  EXPECT_NE(ours[0].find(R"("mime":"warc/revisit")"), std::string::npos) << ours[0];
  EXPECT_NE(ours[0].find(R"("status":"304")"), std::string::npos) << ours[0];
  EXPECT_EQ(ours, testing::lines_of(testing::warcio_cdxj(warcs)));
}

TEST_F(WarcRevisitTest, NewContentIsNoRevisit) {
  const FetchResult changed = revisit_result(FetchOutcome::kOk, 200, "HTTP/1.1 200 OK\r\n\r\n", "<html>new</html>");
  EXPECT_FALSE(warc_revisit_of(changed, original_).has_value());
  // A 304 the fetcher did not call kNotModified answered no validator: nothing to refer to.
  const FetchResult unasked = revisit_result(FetchOutcome::kOk, 304, "HTTP/1.1 304 Not Modified\r\n\r\n", "");
  EXPECT_FALSE(warc_revisit_of(unasked, original_).has_value());
  // A body cut at a limit has no payload digest to compare.
  FetchResult cut = revisit_result(FetchOutcome::kOk, 200, "HTTP/1.1 200 OK\r\n\r\n", kBody);
  cut.payload_digest.clear();
  EXPECT_FALSE(warc_revisit_of(cut, original_).has_value());
}

}  // namespace
}  // namespace bloomcrawl
