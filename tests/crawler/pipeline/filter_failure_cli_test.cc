// `bloomcrawl crawl` when the seen filter's compaction cannot write (its key-file directories are
// regular files, as on a disk that refuses them): the crawl must not go on dropping every new link
// as "filter full" and end with exit 0 and pages never fetched. It stops at once with exit 1 naming
// the filter's directory, and once the cause is gone a resume ends with a record for every page of
// the test web.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/file_system.h"
#include "seenfilter/checkpoint_format.h"
#include "seenfilter/shard_key_files.h"
#include "tests/support/spawn.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_web_config.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

TEST(FilterFailureCli, ACrawlWhoseFilterCannotCompactStopsWithExitOneAndAResumeEndsIt) {
  // At 100 pages per host the crawl finds 439 URLs, under the first layer's 512 keys, and the
  // filter never runs a job; at 200 it does.
  const std::unique_ptr<testweb::TestWeb> web = testing::start_test_web(200);
  testing::TempDir temp;
  const fs::path out = temp.path() / "out";
  const fs::path checkpoints = temp.path() / "ckpt";
  CrawlConfig config = testing::resumable_test_web_config(*web, out, checkpoints, 20);
  config.logging.progress = "never";
  std::ofstream(temp.path() / "crawl.json") << to_json(config).dump(2);
  // The compact filter's log is checkpoints/filter/hashlog (crawl_checkpointer.cc): its jobs' key
  // files cannot be made beside it.
  const fs::path filter_dir = checkpoints / "filter";
  fs::create_directories(filter_dir);
  const std::string log_name(seenfilter::kHashLogFileName);
  const std::vector<fs::path> blockers = {filter_dir / (log_name + std::string(seenfilter::kRunKeyFilesSuffix)),
                                          filter_dir / (log_name + std::string(seenfilter::kMergeKeyFilesSuffix))};
  for (const fs::path& blocker : blockers) std::ofstream(blocker).put('x');

  const auto run = [&](std::vector<std::string> args, const std::string& log) {
    args.insert(args.begin(), BLOOMCRAWL_BIN);
    const pid_t pid =
        testing::spawn_to_files(std::move(args), temp.path() / (log + ".stdout"), temp.path() / (log + ".stderr"));
    EXPECT_GT(pid, 0);
    return testing::wait_exit_code(pid);
  };
  const auto output_of = [&](const std::string& log) {
    return read_whole_file(temp.path() / (log + ".stdout")) + read_whole_file(temp.path() / (log + ".stderr"));
  };

  const int first = run({"crawl", "--config", (temp.path() / "crawl.json").string()}, "first");
  ASSERT_EQ(first, 1) << output_of("first");
  EXPECT_NE(output_of("first").find(filter_dir.string()), std::string::npos)
      << "the error does not name the filter's directory:\n"
      << output_of("first");
  EXPECT_EQ(output_of("first").find("seen filter is full"), std::string::npos) << output_of("first");
  EXPECT_EQ(nlohmann::json::parse(read_whole_file(out / "report.json"))["crawl"]["stopped_by"], "error");

  for (const fs::path& blocker : blockers) fs::remove(blocker);
  ASSERT_EQ(run({"crawl", "--resume", checkpoints.string()}, "resume"), 0) << output_of("resume");
  EXPECT_EQ(testing::unrecorded_pages(*web, out), std::vector<std::string>{});
  EXPECT_EQ(nlohmann::json::parse(read_whole_file(out / "report.json"))["crawl"]["stopped_by"], "done");
  web->stop();
}

}  // namespace
}  // namespace bloomcrawl
