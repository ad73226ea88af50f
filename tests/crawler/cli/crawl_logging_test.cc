// logging.file is rotated by size: past max_file_mb the file moves to crawl.1.log, the older ones
// shift, and no more than max_files rotated files are kept.
#include "crawler/cli/crawl_logging.h"

#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include "tests/support/temp_dir.h"

namespace bloomcrawl::cli {
namespace {

namespace fs = std::filesystem;

TEST(CrawlLogging, TheLogFileIsRotatedBySizeKeepingMaxFiles) {
  testing::TempDir dir;
  LoggingConfig config;
  config.file = (dir.path() / "crawl.log").string();
  config.max_file_mb = 1;
  config.max_files = 2;
  const std::vector<spdlog::sink_ptr> sinks = crawl_log_sinks(config);
  ASSERT_EQ(sinks.size(), 2u) << "stderr and the file";
  spdlog::logger file_only("rotation-test", sinks[1]);  // stderr is not flooded with the test's lines
  const std::string line(1000, 'x');
  for (int i = 0; i < 3500; ++i) file_only.info("line {} {}", i, line);  // 3.5 MB: three rotations
  file_only.flush();

  for (const char* name : {"crawl.log", "crawl.1.log", "crawl.2.log"}) {
    ASSERT_TRUE(fs::exists(dir.path() / name)) << name;
    EXPECT_LE(fs::file_size(dir.path() / name), 1u << 20) << name;
  }
  EXPECT_GT(fs::file_size(dir.path() / "crawl.1.log"), (1u << 20) - 2000) << "rotated when full";
  EXPECT_FALSE(fs::exists(dir.path() / "crawl.3.log")) << "max_files rotated files kept";
}

TEST(CrawlLogging, NoFileNoFileSink) { EXPECT_EQ(crawl_log_sinks(LoggingConfig{}).size(), 1u); }

}  // namespace
}  // namespace bloomcrawl::cli
