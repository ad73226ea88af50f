// Redis authentication against a password-protected redis-server (docs/cluster.md,
// "Authentication"): the default user's password and a Redis 6 ACL user, re-sent on a reconnect;
// a refused password names the server and the user, never the password; and where a node's password
// comes from (the URL, a file, an environment variable: one of them).
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "crawler/cluster/redis_client.h"
#include "crawler/cluster/redis_password.h"
#include "tests/support/redis_server.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kAuthPassword = "s3cret-pa:ss@word";

std::string auth_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(RedisAuth, TheDefaultUsersPasswordIsSentOnEveryConnection) {
  testing::RedisServer server({.password = kAuthPassword});
  server.start();
  const RedisEndpoint endpoint{"127.0.0.1", server.port(), "", kAuthPassword};
  RedisClient redis(endpoint);
  EXPECT_EQ(redis.call({"SET", "k", "v"}, [](const RedisValue& v) { return v.text(); }), "OK");
  server.restart();  // the client reconnects, and must authenticate again
  EXPECT_EQ(redis.call({"SET", "k", "w"}, [](const RedisValue& v) { return v.text(); }), "OK");
  EXPECT_EQ(redis.connections(), 2u);

  RedisClient anonymous(RedisEndpoint{"127.0.0.1", server.port()});
  EXPECT_THAT(auth_error_of([&] { anonymous.command({"GET", "k"}); }), HasSubstr("NOAUTH"));
  const std::string refused = auth_error_of([&] {
    RedisClient(RedisEndpoint{"127.0.0.1", server.port(), "", "wrong"});
  });
  EXPECT_THAT(refused, HasSubstr("cannot authenticate to redis://127.0.0.1:" + std::to_string(server.port())));
  EXPECT_THAT(refused, HasSubstr("WRONGPASS"));
  EXPECT_THAT(refused, Not(HasSubstr("wrong")));
}

TEST(RedisAuth, AnAclUserAuthenticatesWithItsName) {
  testing::RedisServer server({.password = kAuthPassword, .users = {{"crawler", "crawler-pass"}}});
  server.start();
  RedisClient redis(RedisEndpoint{"127.0.0.1", server.port(), "crawler", "crawler-pass"});
  EXPECT_EQ(redis.call({"ACL", "WHOAMI"}, [](const RedisValue& v) { return v.text(); }), "crawler");
  const std::string refused = auth_error_of([&] {
    RedisClient(RedisEndpoint{"127.0.0.1", server.port(), "crawler", kAuthPassword});
  });
  EXPECT_THAT(refused, HasSubstr("as user crawler: WRONGPASS"));
  EXPECT_THAT(refused, Not(HasSubstr(kAuthPassword)));
}

TEST(RedisPassword, ComesFromOneOfTheUrlAFileOrAVariable) {
  testing::TempDir dir;
  const std::string file = (dir.path() / "redis.pass").string();
  std::ofstream(file) << "from-file\n";
  ::setenv("BLOOMCRAWL_TEST_REDIS_PASSWORD", "from-env", 1);
  EXPECT_EQ(redis_password("from-url", "", ""), "from-url");
  EXPECT_EQ(redis_password("", file, ""), "from-file");
  EXPECT_EQ(redis_password("", "", "BLOOMCRAWL_TEST_REDIS_PASSWORD"), "from-env");
  EXPECT_EQ(redis_password("", "", ""), "");
  EXPECT_THAT(auth_error_of([&] { redis_password("from-url", file, ""); }), HasSubstr("give it once"));
  EXPECT_THAT(auth_error_of([&] { redis_password("", (dir.path() / "none").string(), ""); }),
              HasSubstr("cannot be read"));
  EXPECT_THAT(auth_error_of([&] { redis_password("", "", "BLOOMCRAWL_TEST_UNSET_VARIABLE"); }),
              HasSubstr("BLOOMCRAWL_TEST_UNSET_VARIABLE is not set"));
  ::unsetenv("BLOOMCRAWL_TEST_REDIS_PASSWORD");

  ClusterConfig cluster{"redis://127.0.0.1:6390", "n", 2, 0, "crawler", file};
  const RedisEndpoint endpoint = cluster_endpoint(cluster);
  EXPECT_EQ(endpoint.host, "127.0.0.1");
  EXPECT_EQ(endpoint.port, 6390);
  EXPECT_EQ(endpoint.user, "crawler");
  EXPECT_EQ(endpoint.password, "from-file");
  EXPECT_EQ(endpoint.url(), "redis://127.0.0.1:6390") << "what messages show: no credentials";
}

}  // namespace
}  // namespace bloomcrawl
