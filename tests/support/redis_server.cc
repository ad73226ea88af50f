#include "tests/support/redis_server.h"

#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <stdexcept>
#include <utility>
#include <vector>

#include "tests/support/spawn.h"

namespace bloomcrawl::testing {
namespace {

// A port of 127.0.0.1 that nothing listens on now (the kernel's pick for an ephemeral bind).
uint16_t free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot bind a loopback port");
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

constexpr const char* kReadyLine = "Ready to accept connections";

}  // namespace

RedisServer::RedisServer(RedisServerOptions options) : options_(std::move(options)), port_(free_loopback_port()) {}

RedisServer::~RedisServer() { end(SIGKILL); }

void RedisServer::start() {
  if (pid_ > 0) return;
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) throw std::runtime_error("pipe failed");
  std::vector<std::string> args = {"/usr/bin/redis-server",
                                   "--port",
                                   std::to_string(port_),
                                   "--bind",
                                   "127.0.0.1",
                                   "--dir",
                                   dir_.path().string(),
                                   "--save",
                                   "",
                                   "--daemonize",
                                   "no",
                                   "--logfile",
                                   "",
                                   "--appendonly",
                                   options_.appendonly ? "yes" : "no",
                                   "--appendfsync",
                                   "always"};
  if (!options_.password.empty()) args.insert(args.end(), {"--requirepass", options_.password});
  for (const auto& [user, password] : options_.users) {
    args.insert(args.end(), {"--user", user, "on", ">" + password, "~*", "&*", "+@all"});
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  const int spawned = spawn_program(std::move(args), actions, &pid_);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    pid_ = -1;
    throw std::runtime_error("cannot start /usr/bin/redis-server (apt-get install redis-server)");
  }
  {
    std::lock_guard lock(mu_);
    ready_ = false;
    exited_ = false;
    run_start_ = log_.size();
  }
  reader_ = std::thread([this, fd = pipe_fds[0]] {
    char buffer[4096];
    ssize_t n;
    while ((n = ::read(fd, buffer, sizeof buffer)) > 0) {
      std::lock_guard lock(mu_);
      log_.append(buffer, static_cast<size_t>(n));
      if (!ready_ && log_.find(kReadyLine, run_start_) != std::string::npos) ready_ = true;
      cv_.notify_all();
    }
    ::close(fd);
    std::lock_guard lock(mu_);
    exited_ = true;
    cv_.notify_all();
  });
  std::unique_lock lock(mu_);
  cv_.wait(lock, [this] { return ready_ || exited_; });
  if (!ready_) {
    const std::string log = log_;
    lock.unlock();
    end(SIGKILL);
    throw std::runtime_error("redis-server on port " + std::to_string(port_) + " did not start:\n" + log);
  }
}

void RedisServer::stop() { end(SIGTERM); }
void RedisServer::kill() { end(SIGKILL); }

void RedisServer::end(int signal) {
  if (pid_ > 0) {
    ::kill(pid_, signal);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  if (reader_.joinable()) reader_.join();
}

std::string RedisServer::log() const {
  std::lock_guard lock(mu_);
  return log_;
}

}  // namespace bloomcrawl::testing
