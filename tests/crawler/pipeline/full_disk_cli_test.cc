// `bloomcrawl crawl` on disks that really fill up: a small tmpfs under the checkpoint directory
// alone (the frontier's RocksDB store, the journal, the generations), the output directory alone
// (pages.jsonl), and both. The crawl never ends by a signal (Debian's RocksDB aborted on a full
// disk, issue 25) and never exits 0 with records missing: it exits 1 naming a directory on the
// full disk. Grown in place, the same disk takes a resume that ends with a record for every page
// of the test web. Skipped, saying why, where a tmpfs cannot be mounted.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/page_records.h"
#include "tests/support/spawn.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_web.h"
#include "tests/support/tmpfs_mount.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

struct FullDisk {
  const char* name;
  bool checkpoints_on_it;
  bool output_on_it;
  uint64_t bytes;  // small enough that the crawl fills it
};

void PrintTo(const FullDisk& d, std::ostream* os) { *os << d.name; }

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class FullDiskCliTest : public ::testing::TestWithParam<FullDisk> {
 protected:
  void SetUp() override {
    testweb::TestWebOptions o;
    o.trap = false;
    web_ = std::make_unique<testweb::TestWeb>(o);
    web_->start();
  }
  void TearDown() override { web_->stop(); }

  // `bloomcrawl args...`: its exit code (128 + the signal that ended it), its output in `log`.
  int run(std::vector<std::string> args, const std::string& log) const {
    args.insert(args.begin(), BLOOMCRAWL_BIN);
    const pid_t pid = testing::spawn_to_files(std::move(args), dir_ / (log + ".stdout"), dir_ / (log + ".stderr"));
    EXPECT_GT(pid, 0);
    return testing::wait_exit_code(pid);
  }
  std::string output_of(const std::string& log) const {
    return read_text(dir_ / (log + ".stdout")) + read_text(dir_ / (log + ".stderr"));
  }

  fs::path write_config(const fs::path& out, const fs::path& checkpoints) const {
    const nlohmann::json config = {
        {"seeds", {{"urls", {web_->seed_url()}}}},
        {"scope", {{"allowed_hosts", web_->options().hosts}, {"max_depth", -1}}},
        {"politeness", {{"delay_ms", 0}, {"concurrency_per_host", 4}}},
        {"fetch", {{"allowed_ranges", {"127.0.0.0/8"}}}},
        {"seen_filter", {{"initial_capacity", 1000}}},
        {"output", {{"directory", out.string()}}},
        {"checkpoint", {{"directory", checkpoints.string()}, {"interval_pages", 20}, {"interval_s", 0}}},
        {"logging", {{"progress", "never"}}}};
    std::ofstream(dir_ / "crawl.json") << config.dump(2);
    return dir_ / "crawl.json";
  }

  testing::TempDir temp_;
  const fs::path dir_ = temp_.path();
  std::unique_ptr<testweb::TestWeb> web_;
};

TEST_P(FullDiskCliTest, ExitsOneNamingTheFullDiskAndAResumeOnTheGrownDiskEndsTheCrawl) {
  const FullDisk& p = GetParam();
  testing::TmpfsMount disk(dir_ / "disk", p.bytes);
  if (!disk.mounted()) GTEST_SKIP() << disk.why_not();
  const fs::path out = (p.output_on_it ? disk.path() : dir_) / "out";
  const fs::path checkpoints = (p.checkpoints_on_it ? disk.path() : dir_) / "ckpt";
  const fs::path config = write_config(out, checkpoints);

  const int first = run({"crawl", "--config", config.string()}, "first");
  ASSERT_LT(first, 128) << "ended by signal " << first - 128 << ":\n" << output_of("first");
  ASSERT_EQ(first, 1) << "the disk never filled: the test proves nothing\n" << output_of("first");
  EXPECT_NE(output_of("first").find(disk.path().string()), std::string::npos)
      << "the error does not name the full disk:\n"
      << output_of("first");
  // report.json says why, when the disk it goes to still takes it.
  if (const std::string report = read_text(out / "report.json"); !report.empty()) {
    const nlohmann::json parsed = nlohmann::json::parse(report);
    EXPECT_EQ(parsed["crawl"]["stopped_by"], "error") << report;
  }

  ASSERT_TRUE(disk.grow(uint64_t{64} << 20));
  const int resumed = run({"crawl", "--resume", checkpoints.string()}, "resume");
  ASSERT_EQ(resumed, 0) << output_of("resume");
  const auto records = testing::read_page_records(out);
  for (const std::string& url : web_->ground_truth(web_->site_depth())) {
    EXPECT_TRUE(records.contains(url)) << url << " has no record";
  }
  EXPECT_EQ(nlohmann::json::parse(read_text(out / "report.json"))["crawl"]["stopped_by"], "done");
}

INSTANTIATE_TEST_SUITE_P(Mounts, FullDiskCliTest,
                         ::testing::Values(FullDisk{"checkpoints", true, false, 128 << 10},
                                           FullDisk{"output", false, true, 32 << 10},
                                           FullDisk{"both", true, true, 160 << 10}),
                         [](const ::testing::TestParamInfo<FullDisk>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace bloomcrawl
