// End-to-end tests of `bloomcrawl dedup` and `bloomcrawl inspect`, running the built binary.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/crawler/cli/filter_process.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tmpfs_mount.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class DedupCli : public ::testing::Test {
 protected:
  RunResult run(const std::string& args, const std::string& input) {
    const fs::path in = work_.path() / "stdin";
    const fs::path out = work_.path() / "stdout";
    const fs::path err = work_.path() / "stderr";
    std::ofstream(in, std::ios::binary) << input;
    const std::string command =
        std::string(BLOOMCRAWL_BIN) + " " + args + " <" + in.string() + " >" + out.string() + " 2>" + err.string();
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  }
  fs::path state() const { return work_.path() / "state"; }

  // awk '!seen[$0]++' semantics, the reference.
  static std::string reference(const std::string& input) {
    std::set<std::string> seen;
    std::string out;
    std::string line;
    std::istringstream in(input);
    while (std::getline(in, line)) {
      if (seen.insert(line).second) out += line + "\n";
    }
    return out;
  }

  static nlohmann::json stats_json(const std::string& err) {
    return nlohmann::json::parse(err.substr(0, err.find('\n')));
  }

  TempDir work_;
};

std::string url_lines(int from, int to) {
  std::string s;
  for (int i = from; i < to; ++i) s += "https://www.example.com/catalog/item?id=" + std::to_string(i) + "\n";
  return s;
}

TEST_F(DedupCli, PrintsFirstOccurrencesInOrder) {
  const std::string input = "b\na\nb\n\nc\n\na\nc\r\nc\r\nlast-without-newline";
  const RunResult r = run("dedup", input);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "b\na\n\nc\nc\r\nlast-without-newline\n");
  EXPECT_EQ(r.out, reference(input));
}

TEST_F(DedupCli, HandlesManyLinesAcrossLayersAndALongLine) {
  std::string input = url_lines(0, 60000) + url_lines(30000, 90000);
  const std::string long_line(3 << 20, 'x');  // longer than the 128 KiB read buffer
  input += long_line + "\n" + url_lines(0, 10) + long_line + "\n";
  for (const std::string mode : {"", "--compact "}) {
    const RunResult r = run("dedup " + mode + "--capacity 5000 --fpr 1e-7 --stats", input);
    ASSERT_EQ(r.exit_code, 0) << mode << r.err;
    EXPECT_EQ(r.out, reference(input)) << mode;
    const nlohmann::json s = stats_json(r.err);
    EXPECT_EQ(s["lines_in"], 120012);
    EXPECT_EQ(s["new"], 90001);
    EXPECT_EQ(s["duplicates"], 30011);
    // Layered: grown layers. Compact: the compact one (sealed layers rebuilt into it) + the active
    // one, and a frozen one in a rebuild.
    EXPECT_GE(s["layers"].get<int>(), 2) << mode;
    EXPECT_GT(s["bytes"].get<double>(), 0);
    EXPECT_GT(s["bits_per_key"].get<double>(), 0);
    EXPECT_LT(s["estimated_fpr"].get<double>(), 1e-7);
    EXPECT_NE(r.err.find("90001 new"), std::string::npos) << r.err;  // the human summary line
  }
}

TEST_F(DedupCli, IntoHeadStopsQuietly) {
  const fs::path big = work_.path() / "big";
  std::ofstream(big, std::ios::binary) << url_lines(0, 200000);  // 10 MB of new lines: far past a pipe's buffer
  for (bool ignore_sigpipe : {false, true}) {
    const testing_cli::HeadRun r = testing_cli::run_into_head("dedup --stats --state " + state().string(), big.string(),
                                                              work_.path().string(), ignore_sigpipe);
    EXPECT_EQ(r.filter_status, 141) << "ignore_sigpipe " << ignore_sigpipe;
    EXPECT_EQ(r.head_out, url_lines(0, 1));
    EXPECT_EQ(r.filter_err, "") << "ignore_sigpipe " << ignore_sigpipe;
    EXPECT_FALSE(fs::exists(state() / "CURRENT")) << "lines never delivered must not be remembered";
  }
}

TEST_F(DedupCli, WritesEachLineAtOnceToATerminal) {
  // Input still open: a block-buffered filter would show nothing yet.
  EXPECT_EQ(testing_cli::terminal_output_while_input_open("dedup", "a\na\nb\n", 2), "a\r\nb\r\n");
}

TEST_F(DedupCli, StateDedupesAcrossRuns) {
  const RunResult first = run("dedup --compact --capacity 1000 --state " + state().string(), url_lines(0, 3000));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, url_lines(0, 3000));
  const RunResult second = run("dedup --stats --state " + state().string(), url_lines(2000, 5000));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(second.out, url_lines(3000, 5000));
  const nlohmann::json s = stats_json(second.err);
  EXPECT_EQ(s["new"], 2000);
  EXPECT_EQ(s["duplicates"], 1000);
  EXPECT_EQ(s["keys"], 5000);

  const RunResult inspect = run("inspect " + state().string(), "");
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  const nlohmann::json j = nlohmann::json::parse(inspect.out);
  EXPECT_EQ(j["kind"], "seen-filter");
  EXPECT_EQ(j["keys"], 5000);
  EXPECT_EQ(j["parameters"]["initial_capacity"], 1000);
  // Compact mode (format version 3): the big level's fuse shards, the runs if any, then the Bloom
  // layers: one active, and the frozen one if the save caught a job.
  EXPECT_EQ(j["format_version"], 3);
  EXPECT_EQ(j["log_keys"], 5000);
  ASSERT_GE(j["layers"].size(), 2u);
  EXPECT_EQ(j["layers"][0]["kind"], "compact");
  EXPECT_EQ(j["layers"][0]["sealed"], true);
  EXPECT_EQ(j["layers"].back()["kind"], "bloom");
  EXPECT_TRUE(j["checksums_verified"].get<bool>());
  EXPECT_NE(inspect.err.find("5000 keys in"), std::string::npos) << inspect.err;
}

TEST_F(DedupCli, ASecondRunOnTheSameStateIsRefusedNamingTheHolder) {
  ASSERT_EQ(run("dedup --state " + state().string(), "a\n").exit_code, 0);
  testing_cli::RunningFilter first({"dedup", "--line-buffered", "--state", state().string()},
                                   (work_.path() / "first.err").string());
  ASSERT_TRUE(first.write("b\n"));
  ASSERT_EQ(first.read_line(), "b") << "it loaded the state under its lock and is reading";
  const RunResult second = run("dedup --state " + state().string(), "b\nc\n");
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_EQ(second.out, "");
  EXPECT_NE(second.err.find(state().string() + ": in use by process " + std::to_string(first.pid())), std::string::npos)
      << second.err;
  ASSERT_TRUE(first.write("a\nc\n"));
  EXPECT_EQ(first.read_line(), "c");
  EXPECT_EQ(first.finish(), 0) << slurp(work_.path() / "first.err");
  EXPECT_EQ(run("dedup --state " + state().string(), "a\nb\nc\nd\n").out, "d\n") << "the first run's keys were saved";
}

// A new DIR is created and locked at the start too: the second of two runs on it is refused before
// it reads a line, naming the first, instead of one of them finding at its end, after perhaps
// millions of lines, that the other saved there meanwhile.
TEST_F(DedupCli, ASecondRunOnANewStateDirectoryIsRefusedAtTheStart) {
  testing_cli::RunningFilter first({"dedup", "--line-buffered", "--state", state().string()},
                                   (work_.path() / "first.err").string());
  ASSERT_TRUE(first.write("a\n"));
  ASSERT_EQ(first.read_line(), "a");
  EXPECT_TRUE(fs::exists(state() / "LOCK")) << "created and locked at the start";
  const RunResult second = run("dedup --state " + state().string(), "b\n");
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_EQ(second.out, "") << "refused before it read a line";
  EXPECT_NE(second.err.find(state().string() + ": in use by process " + std::to_string(first.pid())), std::string::npos)
      << second.err;
  EXPECT_EQ(first.finish(), 0) << slurp(work_.path() / "first.err");
  EXPECT_EQ(run("dedup --state " + state().string(), "a\nb\n").out, "b\n") << "the first run saved its state";
}

TEST_F(DedupCli, CorruptedStateIsAnErrorAndIsNotOverwritten) {
  ASSERT_EQ(run("dedup --state " + state().string(), url_lines(0, 100)).exit_code, 0);
  fs::path layer;
  for (const auto& e : fs::directory_iterator(state())) {
    if (e.path().extension() == ".sfl") layer = e.path();
  }
  std::string bytes = slurp(layer);
  bytes[bytes.size() / 2] ^= 0x10;
  std::ofstream(layer, std::ios::binary) << bytes;
  const std::string manifests_before = slurp(state() / "CURRENT");

  const RunResult dedup = run("dedup --state " + state().string(), "new line\n");
  EXPECT_NE(dedup.exit_code, 0);
  EXPECT_NE(dedup.err.find(layer.filename().string()), std::string::npos) << dedup.err;
  EXPECT_NE(dedup.err.find("checksum mismatch"), std::string::npos) << dedup.err;
  EXPECT_EQ(dedup.out, "");
  EXPECT_EQ(slurp(state() / "CURRENT"), manifests_before);

  const RunResult inspect = run("inspect " + state().string(), "");
  EXPECT_NE(inspect.exit_code, 0);
  EXPECT_NE(inspect.err.find("checksum mismatch"), std::string::npos) << inspect.err;
}

TEST_F(DedupCli, BadOptionsAndNonCheckpointsAreClearErrors) {
  RunResult r = run("dedup --fpr 0", "a\n");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("target_fpr = 0"), std::string::npos) << r.err;
  r = run("dedup --memory-limit 1K", "a\n");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("memory_limit_bytes"), std::string::npos) << r.err;
  r = run("inspect " + work_.path().string(), "");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("not a recognized checkpoint"), std::string::npos) << r.err;
}

TEST_F(DedupCli, FullFilterStillPrintsNewLinesAndWarns) {
  // The first layer fits the limit, the second does not.
  const RunResult r =
      run("dedup --capacity 1000 --fpr 1e-3 --memory-limit 4K --stats", url_lines(0, 1500) + url_lines(0, 10));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("filter full"), std::string::npos) << r.err;
  const nlohmann::json s = stats_json(r.err.substr(r.err.find('{')));
  EXPECT_TRUE(s["full"].get<bool>());
  EXPECT_EQ(s["unrecorded_full"].get<int>() + s["new"].get<int>(), 1500);
  // Every distinct line is printed once; lines the full filter could not remember may repeat.
  EXPECT_EQ(r.out.substr(0, url_lines(0, 1500).size()), url_lines(0, 1500));
}

TEST_F(DedupCli, TighteningZeroMakesOneRightSizedLayer) {
  const RunResult r = run("dedup --capacity 1000 --fpr 0.01 --tightening 0 --stats", url_lines(0, 1500));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("tightening_ratio 0"), std::string::npos) << r.err;
  const nlohmann::json s = stats_json(r.err.substr(r.err.find('{')));
  EXPECT_EQ(s["layers"].get<int>(), 1);
  EXPECT_EQ(s["new"].get<int>(), 1000);
  EXPECT_LE(s["bits_per_key"].get<double>(), 10.5);  // the whole 1% goes to its only layer
  EXPECT_EQ(s["unrecorded_full"].get<int>() + s["new"].get<int>() + s["duplicates"].get<int>(), 1500);
}

// A compact filter on a disk that fills (a real tmpfs, ENOSPC from the kernel): dedup does not go
// on as if the filter were full (printing repeats as new lines, exit 0), it stops with exit 1
// naming the file and the cause.
TEST_F(DedupCli, CompactStateOnAFullDiskExitsOneNamingIt) {
  testing::TmpfsMount disk(work_.path() / "disk", 256 << 10);
  if (!disk.mounted()) GTEST_SKIP() << disk.why_not();
  const fs::path dir = disk.path() / "state";
  const RunResult r = run("dedup --compact --capacity 1000 --state " + dir.string(), url_lines(0, 200'000));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(dir.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("filter full"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace bloomcrawl
