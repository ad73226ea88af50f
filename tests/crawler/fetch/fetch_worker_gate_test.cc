// FetchWorker with its resolve gate full: a request to a host resolved within the TTL starts at
// once, even queued behind a request the gate refused (docs/fetcher.md, DNS). Before the fix, one
// refusal made every later request of the pass wait for a slot.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "crawler/fetch/fetch_worker.h"
#include "tests/support/fetch_loopback_server.h"
#include "tests/support/fetch_test_support.h"

namespace bloomcrawl {
namespace {

TEST(FetchWorkerGateTest, KnownHostStartsWhileAnUnknownOneWaitsForTheFullGate) {
  testing::LoopbackHttpServer server;
  server.server().Get(
      "/", [](const httplib::Request&, httplib::Response& res) { res.set_content("<html></html>", "text/html"); });
  server.start();
  const std::string known = "known.test:" + std::to_string(server.port());

  FetchContext context;
  context.options = testing::loopback_fetch_options();
  context.options.resolve = {known + ":127.0.0.1"};  // no DNS: only the gate decides when it starts
  testing::FetchCollector collector;
  context.on_complete = collector.callback();
  context.dns = std::make_unique<DnsShare>(context.options.dns_cache_ttl);
  std::unique_ptr<FetchWorker> worker;
  context.resolves = std::make_unique<ResolveGate>(1, context.options.dns_cache_ttl, std::chrono::seconds(30),
                                                   [&] { worker->wake(); });
  const auto now = ResolveGate::Clock::now();
  ASSERT_EQ(context.resolves->begin(known, now), ResolveGate::Admit::kResolving);
  context.resolves->resolved(known, now);  // the host is known for the TTL
  ASSERT_EQ(context.resolves->begin("held.example:80", now), ResolveGate::Admit::kResolving);  // the only slot
  worker = std::make_unique<FetchWorker>(context);

  FetchRequest waiting{1, "http://bloomcrawl-gate-waits.invalid/", "", "bloomcrawl-gate-waits.invalid"};
  FetchRequest ready{2, "http://" + known + "/", "", "known.test"};
  context.in_flight += 2;
  ASSERT_TRUE(worker->submit(waiting));
  ASSERT_TRUE(worker->submit(ready));
  const FetchResult first = collector.wait_one();
  EXPECT_EQ(first.id, 2u) << "the known host waited behind the refused request";
  EXPECT_EQ(first.outcome, FetchOutcome::kOk) << first.error;

  context.resolves->failed();  // the slot frees: the waiting request resolves (and fails) in turn
  const FetchResult second = collector.wait_for(2).back();
  EXPECT_EQ(second.id, 1u);
  EXPECT_EQ(second.outcome, FetchOutcome::kDnsFailed) << second.error;
  worker->stop();
}

}  // namespace
}  // namespace bloomcrawl
