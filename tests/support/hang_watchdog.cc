// Linked into every test program (tests/CMakeLists.txt), never into the testsupport library, whose
// unreferenced objects the linker would leave out.
//
// A hung test used to leave nothing behind: ctest kills it at its timeout (300 s) and prints only
// "Timeout". The longest test takes under a minute under ASan on a loaded 2-core machine, so a test
// process still alive after kHangLimit has hung: the watchdog prints, with gdb, every thread's stack
// of this process and of the `bloomcrawl` programs it started, kills those programs and aborts. The hang fails the run
// with its evidence, and sooner than ctest's timeout would.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr std::chrono::seconds kHangLimit{150};

// BLOOMCRAWL_TEST_HANG_SECONDS overrides the limit: the watchdog's own test sets it low.
std::chrono::seconds hang_limit() {
  const char* text = std::getenv("BLOOMCRAWL_TEST_HANG_SECONDS");
  if (text == nullptr || *text == '\0') return kHangLimit;
  char* end = nullptr;
  const long seconds = std::strtol(text, &end, 10);
  return *end == '\0' && seconds > 0 ? std::chrono::seconds(seconds) : kHangLimit;
}

// gdb's account of every thread of `pid`, on this process's stderr (which ctest shows).
void print_stacks_of(pid_t pid) {
  const std::string target = std::to_string(pid);
  std::fprintf(stderr, "\nhang watchdog: the threads of process %d:\n", int(pid));
  std::fflush(stderr);
  const pid_t gdb = ::fork();
  if (gdb == 0) {
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    ::execlp("gdb", "gdb", "-nx", "-batch", "-p", target.c_str(), "-ex", "thread apply all bt", nullptr);
    std::fprintf(stderr, "hang watchdog: gdb could not be run (scripts/install-deps.sh installs it)\n");
    ::_exit(127);
  }
  if (gdb > 0) ::waitpid(gdb, nullptr, 0);
}

// The `bloomcrawl` processes whose parent is `parent`: the programs a test drives.
std::vector<pid_t> bloomcrawl_children_of(pid_t parent) {
  std::vector<pid_t> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    // /proc/PID/stat: "PID (COMM) STATE PPID ..."; COMM may hold spaces, so parse from its ')'.
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const size_t open = line.find('(');
    const size_t close = line.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid) != 2 || ppid != parent) continue;
    if (line.substr(open + 1, close - open - 1) == "bloomcrawl") found.push_back(pid_t(std::stoi(name)));
  }
  return found;
}

void watch_for_a_hang(std::chrono::seconds limit) {
  std::this_thread::sleep_for(limit);  // a deadline, not a synchronisation: no event ends a hang
  const pid_t self = ::getpid();
  std::fprintf(stderr, "\nhang watchdog: the test is still running after %lld s, so it hung\n",
               static_cast<long long>(limit.count()));
  print_stacks_of(self);
  for (const pid_t child : bloomcrawl_children_of(self)) {
    print_stacks_of(child);
    ::kill(child, SIGKILL);  // not left running once its test is gone
  }
  std::abort();
}

[[maybe_unused]] const bool kHangWatchdogStarted = [] {
  std::thread(watch_for_a_hang, hang_limit()).detach();
  return true;
}();

}  // namespace
