// Checkpoints of a disk frontier taken while another thread pushes, pops and completes: each
// checkpoint must reopen to exactly the URLs it counted at its cut, each once (the store copy
// runs without the frontier's lock, docs/frontier.md "Checkpoints of a disk frontier").
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "frontier/frontier.h"
#include "tests/support/frontier_testing.h"
#include "tests/support/temp_dir.h"

// TSan's reports inside Debian's uninstrumented librocksdb are suppressed by frontier/url_store.cc.

namespace bloomcrawl {
namespace {

using testing::numbered;

namespace fs = std::filesystem;

// Builds "prefix<n>" by appending: GCC 12 -O3 misreports -Wrestrict on `"literal" + std::string`.
FrontierOptions disk_options(const fs::path& store) {
  FrontierOptions options;
  options.default_delay = std::chrono::milliseconds(0);
  options.default_concurrency = 2;
  options.store_directory = store.string();
  options.memory_limit_bytes = 32 << 10;
  return options;
}

TEST(DiskFrontierConcurrentTest, CheckpointsTakenWhileTheFrontierChangesReopenToTheirCut) {
  testing::TempDir dir;
  Frontier frontier(disk_options(dir.path() / "live"));
  for (int i = 0; i < 2000; ++i) frontier.push(numbered("h", i % 13), numbered("u", i), i % 3);
  std::atomic<bool> stop{false};
  std::thread worker([&] {
    int next = 2000;
    std::vector<Lease> leases;
    while (!stop.load()) {
      for (int i = 0; i < 5; ++i, ++next) frontier.push(numbered("h", next % 13), numbered("u", next), 1);
      if (auto lease = frontier.pop_ready(Clock::now())) leases.push_back(*lease);
      if (leases.size() > 3) {
        frontier.complete(leases.front(), Clock::now(), HostOutcome::ok());
        leases.erase(leases.begin());
      }
    }
    for (const Lease& lease : leases) frontier.release(lease);
  });
  std::vector<uint64_t> counted;
  counted.reserve(4);
  for (int generation = 0; generation < 4; ++generation) {
    counted.push_back(frontier.checkpoint(dir.path() / numbered("gen", generation)).queued);
  }
  stop = true;
  worker.join();
  for (int generation = 0; generation < 4; ++generation) {
    Frontier restored =
        Frontier::open_checkpoint(dir.path() / numbered("gen", generation), disk_options(dir.path() / "reopened"));
    std::set<std::string> urls;
    while (auto lease = restored.pop_ready(Clock::now() + std::chrono::hours(1))) {
      EXPECT_TRUE(urls.insert(lease->entry.url).second) << lease->entry.url << " twice";
      restored.complete(*lease, Clock::now(), HostOutcome::ok());
    }
    EXPECT_EQ(urls.size(), counted[generation]) << "generation " << generation;
  }
}

}  // namespace
}  // namespace bloomcrawl
