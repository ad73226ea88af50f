// RedisClient: one connection to a Redis server (hiredis, RESP2), owned and closed by the object.
//
// Contract:
// - Commands are argv vectors sent with redisCommandArgv, so every argument is binary-safe; there is
//   no format string anywhere.
// - Every failure throws RedisError whose message names the server (redis://HOST:PORT) and the
//   command's name: a server error reply, a reply of an unexpected type, or a lost connection that
//   could not be restored.
// - Each connection authenticates first (AUTH [USER] PASSWORD) when the endpoint has a password; a
//   refused AUTH is an error naming the server and the user, never the password.
// - The constructor connects once and throws if it cannot: a Redis unreachable at start is an error
//   for the operator, not something to wait for. A connection lost later is re-established with
//   back-off (doubling from options.backoff_min to options.backoff_max) for up to
//   options.reconnect_for, then the command is sent again; a server still loading its data after
//   a restart (a LOADING error) is waited for the same way. A command may therefore run twice when
//   its reply was lost; callers send only commands for which that is harmless.
// - Not thread-safe: one thread per client.
#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

struct redisContext;
struct redisReply;

namespace bloomcrawl {

class RedisError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RedisEndpoint {
  std::string host;
  uint16_t port = 6379;
  // Sent with AUTH on every connection when `password` is set (a Redis 6 ACL user when `user` is).
  std::string user;
  std::string password;
  // What messages name the server by: never the credentials.
  std::string url() const { return "redis://" + host + ":" + std::to_string(port); }
};

// A reply, copied out of hiredis's tree. The accessors check the type and throw RedisError
// ("expected integer, got nil") otherwise; RedisClient::call() adds the server and the command.
class RedisValue {
 public:
  enum class Type { kNil, kString, kStatus, kInteger, kArray };

  static RedisValue from(const redisReply& reply);  // a server error reply is not a value: see RedisClient

  Type type() const { return type_; }
  bool is_nil() const { return type_ == Type::kNil; }
  // A bulk string or a status ("OK").
  const std::string& text() const;
  int64_t integer() const;
  const std::vector<RedisValue>& array() const;

 private:
  Type type_ = Type::kNil;
  std::string text_;
  int64_t integer_ = 0;
  std::vector<RedisValue> elements_;
};

struct RedisOptions {
  std::chrono::milliseconds timeout{10000};  // connect, and each command's reply
  std::chrono::milliseconds reconnect_for{60000};
  std::chrono::milliseconds backoff_min{50};
  std::chrono::milliseconds backoff_max{2000};
};

class RedisClient {
 public:
  explicit RedisClient(RedisEndpoint endpoint, RedisOptions options = {});
  ~RedisClient();
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;

  const RedisEndpoint& endpoint() const { return endpoint_; }
  // Connections made so far: more than 1 after a reconnect, whose lost reply the caller may need to
  // recover (a stream read's entries are then pending in Redis without having been seen).
  uint64_t connections() const { return connections_; }

  // Sends argv (argv[0] is the command's name) and returns the reply.
  RedisValue command(const std::vector<std::string>& argv);

  // command(argv), its reply read by `parse`; a type error inside `parse` names the command too.
  template <class Parse>
  auto call(const std::vector<std::string>& argv, Parse parse) -> decltype(parse(RedisValue{})) {
    RedisValue reply = command(argv);
    try {
      return parse(reply);
    } catch (const RedisError& e) {
      throw RedisError(where(argv) + ": " + e.what());
    }
  }

 private:
  void connect();
  void authenticate();  // connect()'s AUTH; throws and closes the connection when refused
  // "redis://HOST:PORT, XADD": what an error message starts with.
  std::string where(const std::vector<std::string>& argv) const;

  RedisEndpoint endpoint_;
  RedisOptions options_;
  redisContext* context_ = nullptr;
  uint64_t connections_ = 0;
};

}  // namespace bloomcrawl
