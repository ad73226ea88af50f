// A crawl of the test web stopped, or failed by a power loss or a fault, at the server's n-th page
// request, and a file of a checkpoint damaged on disk: what tests of a resume from the generations
// such a crawl left need.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "crawler/pipeline/crawler.h"
#include "tests/support/test_web.h"

namespace bloomcrawl::testing {

// Runs the crawl of `settings` and calls `act` (a stop, a power loss, a fault) at the server's
// `pages`-th page request, while the server holds the responses from that request on, so the
// crawl cannot end first however late this thread runs (a wait for that many requests followed by
// `act` could wake after the crawl's end). Then the responses are answered again and the crawl
// runs to its end: its report. `reached`: whether that request came within 60 s.
inline nlohmann::json crawl_acting_at(const CrawlerSettings& settings, testweb::TestWeb& web, uint64_t pages,
                                      const std::function<void(Crawler&)>& act, bool* reached) {
  web.hold_responses_from_page_request(pages);
  Crawler crawler(settings);
  nlohmann::json report;
  std::thread run([&] { report = crawler.run(); });
  *reached = web.wait_for_hold(std::chrono::seconds(60)).has_value();
  act(crawler);
  web.release_responses();
  run.join();
  return report;
}

// The crawl stopped (Crawler::stop(), as SIGTERM does) at the server's `pages`-th page request.
inline nlohmann::json crawl_then_stop(const CrawlerSettings& settings, testweb::TestWeb& web, uint64_t pages,
                                      bool* reached) {
  return crawl_acting_at(
      settings, web, pages, [](Crawler& crawler) { crawler.stop(); }, reached);
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
