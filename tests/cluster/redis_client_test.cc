// RedisClient against a real redis-server: binary-safe arguments, errors that name the server and
// the command, an unreachable server at start, and a reconnect across a server restart.
#include "crawler/cluster/redis_client.h"

#include <functional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/redis_server.h"

namespace bloomcrawl {
namespace {

using ::testing::HasSubstr;

RedisEndpoint endpoint_of(const testing::RedisServer& server) { return RedisEndpoint{"127.0.0.1", server.port()}; }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const RedisError& e) {
    return e.what();
  }
  return "(no RedisError)";
}

TEST(RedisClient, ArgumentsAreBinarySafe) {
  testing::RedisServer server;
  server.start();
  RedisClient redis(endpoint_of(server));
  const std::string key("k\0 \r\n*3", 7);
  const std::string value("\0\xff\r\n$-1\r\n", 9);
  EXPECT_EQ(redis.call({"SET", key, value}, [](const RedisValue& v) { return v.text(); }), "OK");
  EXPECT_EQ(redis.call({"GET", key}, [](const RedisValue& v) { return v.text(); }), value);
  EXPECT_TRUE(redis.command({"GET", "k"}).is_nil());
  EXPECT_EQ(redis.call({"RPUSH", "list", "a", "b"}, [](const RedisValue& v) { return v.integer(); }), 2);
  const RedisValue list = redis.command({"LRANGE", "list", "0", "-1"});
  ASSERT_EQ(list.array().size(), 2u);
  EXPECT_EQ(list.array()[1].text(), "b");
}

TEST(RedisClient, ErrorsNameTheServerAndTheCommand) {
  testing::RedisServer server;
  server.start();
  RedisClient redis(endpoint_of(server));
  redis.command({"SET", "word", "abc"});
  std::string error = error_of([&] { redis.command({"INCR", "word"}); });
  EXPECT_THAT(error, HasSubstr(server.url() + ", INCR: ERR value is not an integer"));
  error = error_of([&] { redis.call({"GET", "missing"}, [](const RedisValue& v) { return v.text(); }); });
  EXPECT_THAT(error, HasSubstr(server.url() + ", GET: expected string, got nil"));
}

TEST(RedisClient, AnUnreachableServerAtStartIsAClearError) {
  testing::RedisServer server;  // never started: its port is free
  const std::string error = error_of([&] { RedisClient redis(endpoint_of(server)); });
  EXPECT_THAT(error, HasSubstr("cannot connect to " + server.url() + ": Connection refused"));
}

TEST(RedisClient, ReconnectsAcrossARestartOfTheServer) {
  testing::RedisServer server({.appendonly = true});
  server.start();
  RedisClient redis(endpoint_of(server));
  redis.command({"SET", "kept", "yes"});
  server.restart();
  EXPECT_EQ(redis.call({"GET", "kept"}, [](const RedisValue& v) { return v.text(); }), "yes");
}

TEST(RedisClient, GivesUpWhenTheServerStaysAway) {
  testing::RedisServer server;
  server.start();
  RedisClient redis(endpoint_of(server), RedisOptions{.reconnect_for = std::chrono::milliseconds(300)});
  redis.command({"PING"});
  server.stop();
  const std::string error = error_of([&] { redis.command({"PING"}); });
  EXPECT_THAT(error, HasSubstr(server.url() + ", PING: connection lost"));
  EXPECT_THAT(error, HasSubstr("not restored within 300 ms"));
}

}  // namespace
}  // namespace bloomcrawl
