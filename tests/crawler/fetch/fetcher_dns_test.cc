// The fetcher's resolve gate in use: with one resolve slot, requests to many names that do not
// resolve wait their turn and all end as kDnsFailed, while requests to an address that needs no
// resolving are not held behind them.
#include <gtest/gtest.h>

#include <string>

#include "crawler/fetch/fetcher.h"
#include "tests/support/fetch_loopback_server.h"
#include "tests/support/fetch_test_support.h"

namespace bloomcrawl {
namespace {

TEST(FetcherDnsTest, NamesBeyondTheResolveCapWaitTheirTurnWhileKnownAddressesGoAhead) {
  testing::LoopbackHttpServer server;
  server.server().Get(
      "/", [](const httplib::Request&, httplib::Response& res) { res.set_content("<html></html>", "text/html"); });
  server.start();
  constexpr int kEach = 6;
  FetchOptions options = testing::loopback_fetch_options();
  options.threads = 2;
  options.max_resolves_in_flight = 1;
  testing::FetchCollector collector;
  Fetcher fetcher(options, collector.callback());
  for (int i = 0; i < kEach; ++i) {
    const std::string host = "bloomcrawl-gate-" + std::to_string(i) + ".invalid";
    fetcher.submit({uint64_t(i), "http://" + host + "/", "", host});
    fetcher.submit({uint64_t(kEach + i), server.url("/"), "", "127.0.0.1"});
  }
  int dns_failed = 0;
  int ok = 0;
  for (const FetchResult& r : collector.wait_for(size_t{2} * kEach)) {
    if (r.id < uint64_t(kEach)) {
      EXPECT_EQ(r.outcome, FetchOutcome::kDnsFailed) << r.url << ": " << r.error;
      dns_failed += r.outcome == FetchOutcome::kDnsFailed ? 1 : 0;
    } else {
      EXPECT_EQ(r.outcome, FetchOutcome::kOk) << r.url << ": " << r.error;
      ok += r.outcome == FetchOutcome::kOk ? 1 : 0;
    }
  }
  EXPECT_EQ(dns_failed, kEach);
  EXPECT_EQ(ok, kEach);
}

}  // namespace
}  // namespace bloomcrawl
