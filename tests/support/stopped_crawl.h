// A crawl of the test web stopped (Crawler::stop(), as SIGTERM does) once the server has received
// `pages` page requests, and a file of a checkpoint damaged on disk: what tests of a resume from
// the generations such a crawl left need.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "crawler/pipeline/crawler.h"
#include "tests/support/test_web.h"

namespace bloomcrawl::testing {

// The stopped crawl's report; `reached`: whether the server saw `pages` requests before the stop.
inline nlohmann::json crawl_then_stop(const CrawlerSettings& settings, const testweb::TestWeb& web, uint64_t pages,
                                      bool* reached) {
  Crawler crawler(settings);
  nlohmann::json report;
  std::thread run([&] { report = crawler.run(); });
  *reached = web.wait_for_page_requests(pages, std::chrono::seconds(60));
  crawler.stop();
  run.join();
  return report;
}

// One bit of `path` flipped a third of the way in, in a new file: a hard link of another
// generation's (or the live store's) file keeps its good bytes.
inline void damage_file(const std::filesystem::path& path) {
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  bytes[bytes.size() / 3] = static_cast<char>(bytes[bytes.size() / 3] ^ 0x08);
  std::filesystem::remove(path);
  std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace bloomcrawl::testing
