// RedisServer: a private `redis-server` (Debian's, from PATH) for a test, on a free port of
// 127.0.0.1 with its own temporary directory, no RDB snapshots and, on request, an append-only file.
// On request it requires a password, and has ACL users. start() returns once the server has logged that it accepts
// connections (its log is read from a pipe, no polling); the destructor stops it. restart() keeps the port and the
// directory, so an AOF server comes back with its data, as after an operator's restart; kill() is kill -9.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/support/temp_dir.h"

namespace bloomcrawl::testing {

struct RedisServerOptions {
  bool appendonly = false;  // with appendfsync always, so a restart loses nothing acknowledged
  std::string password;     // requirepass: the default user's password ("": none)
  // Redis 6 ACL users (name, password), each allowed every key and command.
  std::vector<std::pair<std::string, std::string>> users;
};

class RedisServer {
 public:
  explicit RedisServer(RedisServerOptions options = {});
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  // Throws std::runtime_error with the server's log if it exits before it is ready.
  void start();
  // SIGTERM and wait (Redis writes out its AOF); a no-op when not running.
  void stop();
  // SIGKILL and wait.
  void kill();
  void restart() {
    stop();
    start();
  }

  uint16_t port() const { return port_; }
  std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }
  // Everything the server has logged so far.
  std::string log() const;

 private:
  void end(int signal);

  RedisServerOptions options_;
  TempDir dir_;
  uint16_t port_ = 0;
  pid_t pid_ = -1;
  std::thread reader_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::string log_;       // under mu_
  size_t run_start_ = 0;  // under mu_: where this run's log begins
  bool ready_ = false;    // under mu_
  bool exited_ = false;   // under mu_: the log pipe closed
};

}  // namespace bloomcrawl::testing
