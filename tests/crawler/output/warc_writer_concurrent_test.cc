// WarcWriter from many threads at once, with rotation and a thread syncing: every
// exchange is archived exactly once, whole, in some completed file, with its index line; warcio
// reads every record and every digest verifies. Built under TSan too.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "crawler/fetch/payload_digest.h"
#include "crawler/output/warc_writer.h"
#include "tests/support/temp_dir.h"
#include "tests/support/warcio.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

TEST(WarcWriterConcurrentTest, ThreadsArchiveEveryExchangeOnce) {
  testing::TempDir temp;
  constexpr int kThreads = 4;
  constexpr int kPerThread = 40;
  {
    WarcWriter writer({.directory = temp.path(), .max_file_bytes = 20 << 10});
    std::atomic<int> writing{kThreads};
    // As the journal's group commits do: syncs race the writes and the rotations.
    std::thread syncer([&] {
      while (writing.load() > 0) writer.sync();
    });
    std::vector<std::thread> threads;
    threads.reserve(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&writer, &writing, t] {
        for (int i = 0; i < kPerThread; ++i) {
          const std::string url = "http://h" + std::to_string(t) + ".example/p" + std::to_string(i);
          const std::string body = "<html>" + url + std::string(size_t(i) * 37, 'y') + "</html>";
          const std::string digest = sha1_base32_digest(body);
          const std::string head =
              "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " + std::to_string(body.size()) +
              "\r\n\r\n";
          const std::string request = "GET /p" + std::to_string(i) + " HTTP/1.1\r\nHost: h.example\r\n\r\n";
          writer.write({.url = url,
                        .date = std::chrono::system_clock::now(),
                        .request_head = request,
                        .response_head = head,
                        .body = body,
                        .payload_digest = digest,
                        .status = 200,
                        .content_type = "text/html"});
        }
        --writing;
      });
    }
    for (std::thread& t : threads) t.join();
    syncer.join();
  }
  std::vector<fs::path> files;
  size_t index_lines = 0;
  for (const auto& e : fs::directory_iterator(temp.path())) {
    const std::string name = e.path().string();
    ASSERT_FALSE(name.ends_with(".open")) << name;
    if (name.ends_with(".warc.gz")) files.push_back(e.path());
    if (name.ends_with(".cdxj")) index_lines += testing::lines_of(testing::read_text(e.path())).size();
  }
  EXPECT_GT(files.size(), 2u) << "the size limit rotates files while threads write";
  std::map<std::string, int> responses;
  for (const nlohmann::json& r : testing::read_with_warcio(files)) {
    if (r["type"] == "warcinfo") continue;
    EXPECT_EQ(r["block_digest"], r["block_digest_computed"]) << r.dump();
    if (r["type"] == "response") {
      EXPECT_EQ(r["payload_digest"], r["payload_digest_computed"]) << r.dump();
      ++responses[r["target"].get<std::string>()];
    }
  }
  EXPECT_EQ(responses.size(), size_t(kThreads * kPerThread));
  for (const auto& [url, n] : responses) EXPECT_EQ(n, 1) << url;
  EXPECT_EQ(index_lines, size_t(kThreads * kPerThread));
}

}  // namespace
}  // namespace bloomcrawl
