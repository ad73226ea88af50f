// A process killed (SIGKILL) at any point of a checkpoint save leaves the previous checkpoint
// loadable. A child saves repeatedly and reports every durable step through a pipe; the parent
// kills it right after a randomly chosen step, so kills land throughout the save sequence
// (writing layers, syncing, manifest, CURRENT switch, retention). No sleeps: the pipe is the sync.
#include <signal.h>  // NOLINT(modernize-deprecated-headers): kill() is POSIX, declared by <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "seenfilter/checkpoint.h"
#include "tests/seenfilter/checkpoint_test_util.h"
#include "tests/seenfilter/url_keys.h"

namespace bloomcrawl {
namespace {

using testing::TempDir;
using testing::url_key;

constexpr uint64_t kKeysPerRound = 700;

// Messages from the child: 'S' after each save step; 'D' + u64 after a save returned, giving
// the number of keys [0, n) the saved checkpoint holds.
[[noreturn]] void run_child(const std::filesystem::path& dir, int out) {
  const auto send = [out](const void* data, size_t size) {
    if (::write(out, data, size) != static_cast<ssize_t>(size)) ::_exit(3);
  };
  try {
    std::unique_ptr<SeenFilter> filter;
    uint64_t next = 0;
    if (checkpoint_exists(dir)) {
      filter = load_checkpoint(dir);
      next = filter->size();  // keys are inserted in order; 1e-9 FPR makes size() == key count
    } else {
      SeenFilterOptions o;
      o.initial_capacity = 1000;
      o.target_fpr = 1e-9;
      filter = std::make_unique<SeenFilter>(o);
    }
    CheckpointSaveOptions options;
    options.progress = [&](std::string_view) { send("S", 1); };
    for (int round = 0; round < 1000; ++round) {
      for (uint64_t end = next + kKeysPerRound; next < end; ++next) filter->insert(url_key(next));
      save_checkpoint(filter->snapshot(), dir, options);
      char done[9] = {'D'};
      std::memcpy(done + 1, &next, 8);
      send(done, sizeof done);
    }
  } catch (...) {
    ::_exit(2);
  }
  ::_exit(0);
}

bool read_exactly(int fd, void* out, size_t size) {
  auto* p = static_cast<char*>(out);
  while (size > 0) {
    const ssize_t n = ::read(fd, p, size);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

TEST(CheckpointCrash, KillDuringSaveLeavesPreviousCheckpointLoadable) {
  TempDir dir;
  std::mt19937 rng(12345);
  uint64_t committed = 0;  // keys in the newest checkpoint known to be complete
  const int rounds = 24 / static_cast<int>(testing::kScale > 1 ? 3 : 1);
  for (int round = 0; round < rounds; ++round) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::close(fds[0]);
      run_child(dir.path(), fds[1]);
    }
    ::close(fds[1]);
    // Kill after a random step of the second or third save, so at least one save has finished.
    const int kill_after_steps = 8 + static_cast<int>(rng() % 14);
    int steps = 0;
    bool child_alive = true;
    while (child_alive) {
      char tag = 0;
      if (!read_exactly(fds[0], &tag, 1)) {
        child_alive = false;
        break;
      }
      if (tag == 'D') {
        ASSERT_TRUE(read_exactly(fds[0], &committed, 8));
        continue;
      }
      if (++steps == kill_after_steps) {
        ::kill(child, SIGKILL);
        break;
      }
    }
    ::close(fds[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child exited early, status " << status;

    std::unique_ptr<SeenFilter> loaded;
    ASSERT_NO_THROW(loaded = load_checkpoint(dir.path())) << "round " << round;
    // The kill may land after CURRENT switched but before 'D' was read: then it holds more.
    ASSERT_GE(loaded->size(), committed) << "round " << round;
    for (uint64_t i = 0; i < committed; ++i)
      ASSERT_TRUE(loaded->contains(url_key(i))) << "round " << round << " key " << i;
  }
  EXPECT_GT(committed, 0u);
}

}  // namespace
}  // namespace bloomcrawl
