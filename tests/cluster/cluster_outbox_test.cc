// ClusterOutbox against a real redis-server: once a send has failed, a later add() still gives the
// calling thread a ticket of its own that is never sent, so the work that produced it (a page whose
// links went to other nodes) is never recorded as done (docs/cluster.md, "Batching and durability").
#include "crawler/cluster/cluster_outbox.h"

#include <atomic>
#include <chrono>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "crawler/cluster/cluster_registry.h"
#include "tests/support/redis_server.h"

namespace bloomcrawl {
namespace {

RoutedBatch one_url(const std::string& url) {
  return RoutedBatch{1, 0, "http://a.test/", {{url, "b.test:80", 0, false}}};
}

TEST(ClusterOutbox, AfterAFailedSendAnAddGetsATicketThatIsNeverSent) {
  testing::RedisServer server;
  server.start();
  ClusterLink link(ClusterSettings{{"127.0.0.1", server.port()}, "outbox", 2, 0});
  std::string failure;
  std::atomic<int> failures{0};
  ClusterOutbox outbox(link, 256, std::chrono::hours(1), [&](const std::string& why) {
    failure = why;
    failures.fetch_add(1);
  });

  const uint64_t sent = outbox.add(1, one_url("http://b.test/1"));
  outbox.wait_sent(sent);
  EXPECT_TRUE(outbox.sent(sent));

  // Node 1's inbox becomes a string: the next XADD fails at once (WRONGTYPE), as a lost Redis would.
  RedisClient(RedisEndpoint{"127.0.0.1", server.port()}).command({"SET", cluster_key("outbox", "inbox:1"), "x"});
  const uint64_t failing = outbox.add(1, one_url("http://b.test/2"));
  EXPECT_THROW(outbox.wait_sent(failing), RedisError);

  const uint64_t after = outbox.add(1, one_url("http://b.test/3"));
  EXPECT_GT(after, failing);
  EXPECT_EQ(outbox.last_ticket(), after) << "the page's completion must wait on its own links";
  EXPECT_FALSE(outbox.sent(after));
  bool done = false;
  EXPECT_TRUE(outbox.after_send(after, [&] { done = true; })) << "the page's completion would be journaled now";
  EXPECT_THROW(outbox.wait_sent(after), RedisError);
  outbox.stop();  // joins the thread that reported the failure
  EXPECT_FALSE(done);
  EXPECT_EQ(failures.load(), 1);
  EXPECT_THAT(failure, ::testing::HasSubstr("WRONGTYPE"));
}

}  // namespace
}  // namespace bloomcrawl
