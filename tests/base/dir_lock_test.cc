// DirLock: one holder per directory, across processes and within one, released by the kernel
// however the holder ends.
#include <signal.h>  // NOLINT(modernize-deprecated-headers): kill() is POSIX, declared by <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "base/data_error.h"
#include "base/dir_lock.h"
#include "base/file_system.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

using testing::TempDir;

// The error a second DirLock on `dir` meets, if it is refused.
std::optional<DirLockedError> refusal(const std::filesystem::path& dir) {
  try {
    DirLock second(dir);
  } catch (const DirLockedError& e) {
    return e;
  }
  return std::nullopt;
}

TEST(DirLock, CreatesTheDirectoryAndRecordsThePid) {
  TempDir tmp;
  const std::filesystem::path dir = tmp.path() / "a" / "b";
  DirLock lock(dir);
  EXPECT_EQ(lock.directory(), dir);
  EXPECT_EQ(read_whole_file(dir / "LOCK"), std::to_string(::getpid()) + "\n");
}

TEST(DirLock, ASecondLockInTheSameProcessIsRefusedNamingDirectoryAndPid) {
  TempDir tmp;
  DirLock first(tmp.path());
  const std::optional<DirLockedError> e = refusal(tmp.path());
  ASSERT_TRUE(e.has_value()) << "flock belongs to the open file description: two opens conflict";
  EXPECT_EQ(e->holder(), ::getpid());
  const std::string what = e->what();
  EXPECT_NE(what.find(tmp.path().string()), std::string::npos) << what;
  EXPECT_NE(what.find("process " + std::to_string(::getpid())), std::string::npos) << what;
}

TEST(DirLock, ReleasedWhenTheHolderGoes) {
  TempDir tmp;
  std::optional<DirLock> first(std::in_place, tmp.path());
  EXPECT_TRUE(refusal(tmp.path()).has_value());
  first.reset();
  EXPECT_FALSE(refusal(tmp.path()).has_value());
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "LOCK")) << "the file stays, as LevelDB's does";
}

TEST(DirLock, AnUnrecordedHolderIsStillRefused) {
  TempDir tmp;
  DirLock first(tmp.path());
  std::filesystem::resize_file(tmp.path() / "LOCK", 0);  // as if caught before it wrote its PID
  const std::optional<DirLockedError> e = refusal(tmp.path());
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->holder(), 0);
  EXPECT_NE(std::string(e->what()).find("not recorded"), std::string::npos) << e->what();
}

TEST(DirLock, AnotherProcessIsRefusedAndKillNineLeavesNoStaleLock) {
  TempDir tmp;
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(ready[0]);
    try {
      DirLock lock(tmp.path());
      if (::write(ready[1], "L", 1) != 1) ::_exit(3);
      ::pause();  // holds the lock until killed
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(0);
  }
  ::close(ready[1]);
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1) << "the child locked";
  ::close(ready[0]);
  const std::optional<DirLockedError> e = refusal(tmp.path());
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->holder(), child);
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status));
  DirLock after(tmp.path());  // the kernel released the dead holder's lock
  EXPECT_EQ(read_whole_file(tmp.path() / "LOCK"), std::to_string(::getpid()) + "\n");
}

TEST(DirLock, AnUncreatableDirectoryIsACheckpointError) {
  TempDir tmp;
  const std::filesystem::path file = tmp.path() / "file";
  {
    WritableFile f(file, FileSystem::Mode::kTruncate);
    f.append("x");
  }
  EXPECT_THROW(DirLock(file / "sub"), CheckpointError);
}

}  // namespace
}  // namespace bloomcrawl
