// write_file_durably and DurableFile over the file-system seam, with faults injected where the
// disk would fail: the file keeps its old content, no temp file is left, and the error names
// the path and the errno.
#include "base/durable_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <string>

#include "base/data_error.h"
#include "base/file_system.h"
#include "tests/support/faulty_file_system.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using testing::FaultyFileSystem;
using ::testing::HasSubstr;
using testing::TempDir;

class DurableFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() / "state";
    write_file_durably(path_, "old", 3);
  }
  // The error write_file_durably throws for "new" with the faults armed in `faulty`.
  std::string failed_write() {
    try {
      write_file_durably(path_, "new", 3);
    } catch (const CheckpointError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no error";
    return "";
  }
  void expect_old_file_only() {
    EXPECT_EQ(read_whole_file(path_), "old");
    EXPECT_FALSE(fs::exists(path_.string() + ".tmp"));
  }

  TempDir dir_;
  fs::path path_;
};

TEST_F(DurableFileTest, ReplacesTheFileWhole) {
  write_file_durably(path_, "new content", 11);
  EXPECT_EQ(read_whole_file(path_), "new content");
  EXPECT_FALSE(fs::exists(path_.string() + ".tmp"));
  sync_directory(dir_.path());
}

TEST_F(DurableFileTest, AFailedWriteLeavesTheOldFile) {
  FaultyFileSystem faulty;
  faulty.fail_write(1, EIO);
  const std::string error = failed_write();
  EXPECT_THAT(error, HasSubstr((dir_.path() / "state.tmp").string()));
  EXPECT_THAT(error, HasSubstr("write failed"));
  expect_old_file_only();
}

TEST_F(DurableFileTest, ENOSPCIsReportedAsSuch) {
  FaultyFileSystem faulty;
  faulty.fail_write(1, ENOSPC);
  EXPECT_THAT(failed_write(), HasSubstr("No space left on device"));
  expect_old_file_only();
}

TEST_F(DurableFileTest, AFailedFsyncLeavesTheOldFile) {
  FaultyFileSystem faulty;
  faulty.fail_sync(1, EIO);
  const std::string error = failed_write();
  EXPECT_THAT(error, HasSubstr("state.tmp: fsync failed"));
  expect_old_file_only();
}

TEST_F(DurableFileTest, TheNthWriteOfADurableFileFails) {
  FaultyFileSystem faulty;
  faulty.fail_write(3, ENOSPC);
  try {
    DurableFile file(dir_.path() / "big.tmp");
    file.append("1", 1);
    file.append("2", 1);
    file.append("3", 1);
    file.commit(path_);
    FAIL() << "no error";
  } catch (const CheckpointError& e) {
    EXPECT_THAT(e.what(), HasSubstr("big.tmp: write failed: No space left on device"));
  }
  EXPECT_EQ(faulty.writes(), 3);
  EXPECT_FALSE(fs::exists(dir_.path() / "big.tmp"));
  expect_old_file_only();
}

TEST_F(DurableFileTest, AnUncommittedFileIsRemoved) {
  {
    DurableFile file(dir_.path() / "abandoned.tmp");
    file.append("x", 1);
  }
  EXPECT_FALSE(fs::exists(dir_.path() / "abandoned.tmp"));
}

TEST_F(DurableFileTest, ErrorsNameThePath) {
  const fs::path missing_dir = dir_.path() / "no" / "such";
  try {
    write_file_durably(missing_dir / "f", "x", 1);
    FAIL() << "no error";
  } catch (const CheckpointError& e) {
    EXPECT_THAT(e.what(), HasSubstr((missing_dir / "f.tmp").string() + ": cannot create: No such file"));
  }
  EXPECT_THROW(sync_directory(missing_dir), CheckpointError);
}

}  // namespace
}  // namespace bloomcrawl
