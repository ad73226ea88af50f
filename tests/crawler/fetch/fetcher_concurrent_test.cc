// The fetcher under concurrency (also built with TSan): many submitting threads, several worker
// threads and hosts, many transfers in flight; and stop() racing with submit().
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "crawler/fetch/fetcher.h"
#include "tests/support/fetch_loopback_server.h"
#include "tests/support/fetch_test_support.h"

namespace bloomcrawl {
namespace {

using testing::FetchCollector;

// A loopback server answering /n/<number> with a page naming the number.
class NumberServer {
 public:
  NumberServer() {
    server_.server().Get(R"(/n/(\d+))", [](const httplib::Request& request, httplib::Response& response) {
      response.set_content(page(request.matches[1].str()), "text/html");
    });
    server_.start();
  }
  static std::string page(const std::string& number) { return "<html><p>" + number + "</p></html>"; }
  std::string url(uint64_t number) const { return server_.url("/n/" + std::to_string(number)); }

 private:
  testing::LoopbackHttpServer server_;
};

FetchOptions concurrent_options() {
  FetchOptions options = testing::loopback_fetch_options();
  options.threads = 3;
  options.transfers_per_thread = 16;
  options.max_host_connections = 4;
  options.connect_timeout = std::chrono::milliseconds(10000);
  options.idle_timeout = std::chrono::milliseconds(20000);
  options.total_timeout = std::chrono::milliseconds(30000);
  return options;
}

TEST(FetcherConcurrentTest, ManySubmittersManyTransfersAllComplete) {
  std::vector<std::unique_ptr<NumberServer>> servers;
  servers.reserve(3);
  for (int i = 0; i < 3; ++i) servers.push_back(std::make_unique<NumberServer>());
  FetchCollector collector;
  Fetcher fetcher(concurrent_options(), collector.callback());
  constexpr uint64_t kSubmitters = 4;
  constexpr uint64_t kPerSubmitter = 150;
  std::vector<std::thread> submitters;
  for (uint64_t s = 0; s < kSubmitters; ++s) {
    submitters.emplace_back([&, s] {
      for (uint64_t i = 0; i < kPerSubmitter; ++i) {
        const uint64_t id = s * kPerSubmitter + i;
        fetcher.submit({id, servers[id % servers.size()]->url(id), ""});
      }
    });
  }
  for (std::thread& submitter : submitters) submitter.join();
  const std::vector<FetchResult> results = collector.wait_for(kSubmitters * kPerSubmitter);
  std::map<uint64_t, int> seen;
  for (const FetchResult& result : results) {
    ++seen[result.id];
    ASSERT_EQ(result.outcome, FetchOutcome::kOk) << result.url << ": " << result.error;
    EXPECT_EQ(result.body, NumberServer::page(std::to_string(result.id)));
  }
  EXPECT_EQ(seen.size(), kSubmitters * kPerSubmitter);
  for (const auto& [id, count] : seen) EXPECT_EQ(count, 1) << id;
}

TEST(FetcherConcurrentTest, StopRacingSubmitReportsEveryRequestOnce) {
  NumberServer server;
  FetchCollector collector;
  auto fetcher = std::make_unique<Fetcher>(concurrent_options(), collector.callback());
  std::atomic<uint64_t> submitted{0};
  std::atomic<bool> keep_submitting{true};
  std::vector<std::thread> submitters;
  for (uint64_t s = 0; s < 3; ++s) {
    submitters.emplace_back([&] {
      while (keep_submitting.load() && submitted.load() < 20000) {
        const uint64_t id = submitted.fetch_add(1);
        fetcher->submit({id, server.url(id), ""});
      }
    });
  }
  collector.wait_for(50);  // some completed, many in flight or queued
  fetcher->stop();
  keep_submitting = false;
  for (std::thread& submitter : submitters) submitter.join();
  const std::vector<FetchResult> results = collector.wait_for(submitted.load());
  EXPECT_EQ(results.size(), submitted.load());
  std::map<uint64_t, int> seen;
  size_t cancelled = 0;
  for (const FetchResult& result : results) {
    ++seen[result.id];
    if (result.outcome == FetchOutcome::kCancelled) {
      ++cancelled;
    } else {
      EXPECT_EQ(result.outcome, FetchOutcome::kOk) << result.error;
    }
  }
  EXPECT_EQ(seen.size(), submitted.load());
  EXPECT_GT(cancelled, 0u);  // submits after stop() at least
  EXPECT_EQ(fetcher->in_flight(), 0u);
  fetcher.reset();
}

}  // namespace
}  // namespace bloomcrawl
