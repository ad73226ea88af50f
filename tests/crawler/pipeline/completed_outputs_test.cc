// OutputsOnDisk: a completed record is trusted only if pages.jsonl holds its page's line ending
// where the record says (not merely a file that long: one cut by a power loss and grown again by a
// later run has other lines there), and edges.jsonl and the WARC file reach their ends.
#include "crawler/pipeline/completed_outputs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

class CompletedOutputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_ / "warc");
    write("pages.jsonl", a_ + b_);
    write("edges.jsonl", std::string(50, 'e'));
    write("warc/w1.warc.gz", std::string(300, 'w'));
    write("warc/w2.warc.gz.open", std::string(100, 'w'));
  }
  void write(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
  }

  testing::TempDir temp_;
  const fs::path dir_ = temp_.path();
  const std::string a_ = R"({"outcome":"ok","url":"http://a.test/1"})"
                         "\n";
  const std::string b_ = R"({"outcome":"ok","url":"http://a.test/2"})"
                         "\n";
};

TEST_F(CompletedOutputsTest, TrustsOnlyThePageLineEndingWhereTheRecordSays) {
  OutputsOnDisk disk(dir_);
  EXPECT_TRUE(disk.holds("http://a.test/1", {.pages_end = a_.size()}));
  EXPECT_TRUE(disk.holds("http://a.test/2", {.pages_end = a_.size() + b_.size()}));
  EXPECT_FALSE(disk.holds("http://a.test/2", {.pages_end = a_.size()})) << "another page's line";
  EXPECT_FALSE(disk.holds("http://a.test/1", {.pages_end = a_.size() - 1})) << "not a line's end";
  EXPECT_FALSE(disk.holds("http://a.test/2", {.pages_end = a_.size() + b_.size() + 1})) << "past the file";
}

TEST_F(CompletedOutputsTest, EdgesAndWarcMustReachTheirEnds) {
  OutputsOnDisk disk(dir_);
  const CompletedOutputs page{.pages_end = a_.size()};
  CompletedOutputs o = page;
  o.edges_end = 50;
  EXPECT_TRUE(disk.holds("http://a.test/1", o));
  o.edges_end = 51;
  EXPECT_FALSE(disk.holds("http://a.test/1", o));
  o = page;
  o.warc_file = "w1.warc.gz";  // completed
  o.warc_end = 300;
  EXPECT_TRUE(disk.holds("http://a.test/1", o));
  o.warc_end = 301;
  EXPECT_FALSE(disk.holds("http://a.test/1", o));
  o.warc_file = "w2.warc.gz";  // still open
  o.warc_end = 100;
  EXPECT_TRUE(disk.holds("http://a.test/1", o));
  o.warc_file = "w3.warc.gz";  // lost with its name
  o.warc_end = 1;
  EXPECT_FALSE(disk.holds("http://a.test/1", o));
}

TEST_F(CompletedOutputsTest, AMissingPagesFileHoldsNothing) {
  fs::remove(dir_ / "pages.jsonl");
  OutputsOnDisk disk(dir_);
  EXPECT_FALSE(disk.holds("http://a.test/1", {.pages_end = a_.size()}));
}

}  // namespace
}  // namespace bloomcrawl
