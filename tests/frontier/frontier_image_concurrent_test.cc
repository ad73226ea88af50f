// FrontierImage under concurrency (also run under TSan): images are captured and encoded on one
// thread while another keeps popping, putting back, completing and pushing, so pinned chunks
// are read while the queues that own them change and free them.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>

#include "frontier/frontier.h"
#include "frontier/frontier_image.h"
#include "frontier/frontier_snapshot.h"
#include "tests/support/frontier_testing.h"

namespace bloomcrawl {
namespace {

using testing::kT0;

// Built by appending: GCC 12 misreports `"h" + std::to_string(n) + ...` under -Werror=restrict.
std::string host_of(int n) {
  std::string host("h");
  host.append(std::to_string(n % 50)).append(".example");
  return host;
}

std::string url_of(int n) {
  std::string url("https://");
  url.append(host_of(n)).append("/articles/").append(std::to_string(n)).append(".html");
  return url;
}

TEST(FrontierImageConcurrentTest, ImagesEncodeConsistentSnapshotsWhileTheFrontierChanges) {
  FrontierOptions options;
  options.default_delay = std::chrono::milliseconds(0);
  options.default_concurrency = 8;
  Frontier frontier(options);
  for (int i = 0; i < 20000; ++i) frontier.push(host_of(i), url_of(i), i % 3);

  std::atomic<bool> stop{false};
  std::atomic<uint64_t> mutations{0};
  std::thread mutator([&] {
    int next = 20000;
    while (!stop.load()) {
      if (auto lease = frontier.pop_ready(kT0)) {
        if (next % 3 == 0) {
          frontier.release(*lease);  // push_front, possibly onto a pinned head chunk
        } else {
          frontier.complete(*lease, kT0, HostOutcome::ok());
          frontier.push(host_of(next), url_of(next), next % 3);  // the queue keeps its size
        }
      }
      ++next;
      mutations.fetch_add(1);
    }
  });

  int images = 0;
  while (images < 30 || mutations.load() < 20000) {
    const FrontierImage image = frontier.capture();
    std::string bytes = image.encode_body();
    seal_frontier_snapshot(bytes);
    const Frontier restored = Frontier::restore(bytes, options);
    const FrontierStats stats = restored.stats();
    // Restored: the queue at the capture plus the leases then in flight (at most the 50 hosts'
    // concurrency), all put back.
    EXPECT_GE(stats.queued, image.queued_urls());
    EXPECT_LE(stats.queued, image.queued_urls() + uint64_t{50} * 8);
    EXPECT_EQ(restored.snapshot(), bytes);
    ++images;
  }
  stop = true;
  mutator.join();
  EXPECT_GE(images, 30);
}

}  // namespace
}  // namespace bloomcrawl
