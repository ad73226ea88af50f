// The seam itself: the default is POSIX, an installed file system sees every call, reading is
// bounded, and WritableFile reports failures by path.
#include "base/file_system.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <string>

#include "base/data_error.h"
#include "tests/support/faulty_file_system.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using testing::FaultyFileSystem;
using ::testing::HasSubstr;
using testing::TempDir;

TEST(FileSystemTest, AppendModeAddsTruncateModeReplaces) {
  TempDir dir;
  const fs::path path = dir.path() / "log";
  {
    WritableFile file(path, FileSystem::Mode::kTruncate);
    file.append("one\n");
    file.sync_data();
    file.close();
  }
  {
    WritableFile file(path, FileSystem::Mode::kAppend);
    file.append("two\n");
  }
  EXPECT_EQ(read_whole_file(path), "one\ntwo\n");
  { WritableFile file(path, FileSystem::Mode::kTruncate); }
  EXPECT_EQ(read_whole_file(path), "");
}

TEST(FileSystemTest, AnInstalledFileSystemSeesEveryWriteAndIsRemovedAfter) {
  TempDir dir;
  FileSystem* const posix = &file_system();
  {
    FaultyFileSystem faulty;
    EXPECT_EQ(&file_system(), &faulty);
    WritableFile file(dir.path() / "f", FileSystem::Mode::kTruncate);
    file.append("a");
    file.append("b");
    file.sync();
    EXPECT_EQ(faulty.writes(), 2);
    EXPECT_EQ(faulty.syncs(), 1);
  }
  EXPECT_EQ(&file_system(), posix);
}

TEST(FileSystemTest, InjectedFailuresThrowNamingThePath) {
  TempDir dir;
  const fs::path path = dir.path() / "f";
  FaultyFileSystem faulty;
  faulty.fail_write(2, ENOSPC);
  WritableFile file(path, FileSystem::Mode::kTruncate);
  file.append("kept");
  try {
    file.append("lost");
    FAIL() << "no error";
  } catch (const CheckpointError& e) {
    EXPECT_THAT(e.what(), HasSubstr(path.string() + ": write failed: No space left on device"));
  }
  file.append("!");  // one failure only
  faulty.fail_sync(1, EIO);
  EXPECT_THROW(file.sync_data(), CheckpointError);
  file.sync();
  EXPECT_EQ(read_whole_file(path), "kept!");
}

// close(2) can report data the kernel could not write back: close() throws it, and a file its
// owner left open is closed by the destructor, which cannot throw but does not keep quiet.
TEST(FileSystemTest, AFailedCloseIsReportedByCloseAndWrittenOutByTheDestructor) {
  TempDir dir;
  const fs::path path = dir.path() / "f";
  FaultyFileSystem faulty;
  {
    WritableFile file(path, FileSystem::Mode::kTruncate);
    faulty.fail_close(1, EIO);
    try {
      file.close();
      ADD_FAILURE() << "a failed close was not reported";
    } catch (const CheckpointError& e) {
      EXPECT_THAT(e.what(), HasSubstr(path.string() + ": close failed: Input/output error"));
    }
    EXPECT_FALSE(file.is_open());
    EXPECT_THROW(file.close(), CheckpointError) << "closed twice";
  }
  ::testing::internal::CaptureStderr();
  {
    WritableFile file(path, FileSystem::Mode::kTruncate);
    faulty.fail_close(1, EIO);
  }
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr(path.string() + ": close failed (left open by its owner): Input/output error"));
  ::testing::internal::CaptureStderr();
  {
    WritableFile file(path, FileSystem::Mode::kTruncate);
    faulty.fail_close(1, EIO);
    file.abandon();  // its owner reported a failure already
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST(FileSystemTest, ReadingIsBoundedAndNamesMissingFiles) {
  TempDir dir;
  const fs::path path = dir.path() / "f";
  {
    WritableFile file(path, FileSystem::Mode::kTruncate);
    file.append(std::string(10000, 'x'));
  }
  EXPECT_EQ(read_whole_file(path, 10000).size(), 10000u);
  try {
    read_whole_file(path, 9999);
    FAIL() << "no error";
  } catch (const CheckpointError& e) {
    EXPECT_THAT(e.what(), HasSubstr(path.string() + ": too large: over 9999 bytes"));
  }
  try {
    read_whole_file(dir.path() / "missing");
    FAIL() << "no error";
  } catch (const CheckpointError& e) {
    EXPECT_THAT(e.what(), HasSubstr((dir.path() / "missing").string() + ": cannot read: No such file"));
  }
}

}  // namespace
}  // namespace bloomcrawl
