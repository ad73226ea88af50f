// Runs a `bloomcrawl` line filter (dedup, url) the ways a shell user would: into `head`, with
// stdout on a terminal while its input is still open, and as one of several processes at once
// (RunningFilter). Header-only, for the CLI tests.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/spawn.h"

namespace bloomcrawl::testing_cli {

struct HeadRun {
  int filter_status = -1;  // as the shell reports it: 141 = ended by SIGPIPE
  std::string head_out;
  std::string filter_err;
};

// `bloomcrawl ARGS < input | head -1`, SIGPIPE ignored first when `ignore_sigpipe` (the filter
// then sees EPIPE instead of the signal, as under a parent that ignores it).
inline HeadRun run_into_head(const std::string& args, const std::string& input_path, const std::string& dir,
                             bool ignore_sigpipe) {
  const std::string out = dir + "/head_out";
  const std::string err = dir + "/filter_err";
  const std::string status = dir + "/filter_status";
  const std::string script = std::string(ignore_sigpipe ? "trap '' PIPE; " : "") + BLOOMCRAWL_BIN + " " + args + " <'" +
                             input_path + "' 2>'" + err + "' | head -1 >'" + out + "'; echo \\${PIPESTATUS[0]} >'" +
                             status + "'";
  const std::string command = "bash -c \"" + script + "\"";
  HeadRun run;
  if (std::system(command.c_str()) != 0) return run;
  auto slurp = [](const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  };
  run.filter_status = std::stoi(slurp(status));
  run.head_out = slurp(out);
  run.filter_err = slurp(err);
  return run;
}

// Starts `bloomcrawl ARGS` with stdout on a pseudo-terminal and stdin a pipe, writes `input`
// without closing stdin, and returns what the terminal shows once `want_lines` lines arrived, or
// what it showed when 20 s passed without output (a block-buffered filter shows nothing). Then
// closes stdin and reaps the filter. The terminal shows each "\n" as "\r\n".
inline std::string terminal_output_while_input_open(const std::string& args, const std::string& input, int want_lines) {
  int master = -1;
  int slave = -1;
  int in[2];
  if (::openpty(&master, &slave, nullptr, nullptr, nullptr) != 0 || ::pipe2(in, O_CLOEXEC) != 0) return "no pty";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, slave, STDOUT_FILENO);
  const std::string command = std::string(BLOOMCRAWL_BIN) + " " + args + " 2>/dev/null";
  const char* argv[] = {"sh", "-c", command.c_str(), nullptr};
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, "/bin/sh", &actions, nullptr, const_cast<char**>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(slave);
  std::string shown;
  if (spawned == 0 && ::write(in[1], input.data(), input.size()) == static_cast<ssize_t>(input.size())) {
    int lines = 0;
    pollfd p{master, POLLIN, 0};
    while (lines < want_lines && ::poll(&p, 1, 20000) == 1) {
      char buf[4096];
      const ssize_t n = ::read(master, buf, sizeof buf);
      if (n <= 0) break;
      shown.append(buf, static_cast<size_t>(n));
      for (ssize_t i = 0; i < n; ++i) lines += buf[i] == '\n' ? 1 : 0;
    }
  }
  ::close(in[1]);
  if (spawned == 0) {
    // Drain until the filter exits so it never blocks on a full terminal.
    pollfd p{master, POLLIN, 0};
    char buf[4096];
    while (::poll(&p, 1, 20000) == 1 && ::read(master, buf, sizeof buf) > 0) {
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
  }
  ::close(master);
  return shown;
}

// `bloomcrawl ARGS...` running with its stdin and stdout on pipes held here and its stderr in a
// file, so a test can feed it, see its output line by line, and start other processes meanwhile.
class RunningFilter {
 public:
  RunningFilter(std::vector<std::string> args, const std::string& stderr_path) {
    int in[2];
    int out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) return;
    args.insert(args.begin(), BLOOMCRAWL_BIN);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (testing::spawn_program(std::move(args), actions, &pid_) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    in_ = in[1];
    out_ = out[0];
  }
  ~RunningFilter() { finish(); }
  RunningFilter(const RunningFilter&) = delete;
  RunningFilter& operator=(const RunningFilter&) = delete;

  pid_t pid() const { return pid_; }
  bool write(const std::string& input) const {
    return in_ >= 0 && ::write(in_, input.data(), input.size()) == static_cast<ssize_t>(input.size());
  }
  // The next line of its output (without "\n"), or "" when none came within 20 s.
  std::string read_line() {
    while (buffered_.find('\n') == std::string::npos) {
      pollfd p{out_, POLLIN, 0};
      char buf[4096];
      if (::poll(&p, 1, 20000) != 1) return "";
      const ssize_t n = ::read(out_, buf, sizeof buf);
      if (n <= 0) return "";
      buffered_.append(buf, static_cast<size_t>(n));
    }
    const size_t end = buffered_.find('\n');
    std::string line = buffered_.substr(0, end);
    buffered_.erase(0, end + 1);
    return line;
  }
  // Closes its input, reads its output to the end and returns its exit status (-1 if it did not exit).
  int finish() {
    if (pid_ < 0) return -1;
    ::close(in_);
    char buf[4096];
    while (::read(out_, buf, sizeof buf) > 0) {
    }
    ::close(out_);
    int status = 0;
    const bool reaped = ::waitpid(pid_, &status, 0) == pid_;
    pid_ = -1;
    return reaped && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  pid_t pid_ = -1;
  int in_ = -1;
  int out_ = -1;
  std::string buffered_;
};

}  // namespace bloomcrawl::testing_cli
