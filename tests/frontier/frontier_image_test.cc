// FrontierImage: a capture encodes to exactly the snapshot the frontier would have written at
// that instant, whatever the frontier does between the capture and the encoding (queues drained
// and their chunks freed, leases put back into pinned chunks, hosts and groups added, settings
// changed), and it outlives the frontier.
#include "frontier/frontier_image.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "frontier/frontier.h"
#include "frontier/frontier_snapshot.h"
#include "tests/support/frontier_testing.h"

namespace bloomcrawl {
namespace {

using testing::kT0;
using testing::no_delay;

std::string sealed(const FrontierImage& image) {
  std::string bytes = image.encode_body();
  seal_frontier_snapshot(bytes);
  return bytes;
}

std::string url_of(int host, int i) {
  return "https://host" + std::to_string(host) + ".example/section/" + std::to_string(i) + "/page.html";
}

// Many hosts, some with one URL (small single chunk), some with thousands (linked 4 KiB chunks),
// over two depths; some leases in flight; a named group and per-host settings.
Frontier populated() {
  Frontier frontier(no_delay(4));
  for (int i = 0; i < 6000; ++i) frontier.push("host0.example", url_of(0, i), 1 + i % 2);
  for (int h = 1; h < 200; ++h) {
    for (int i = 0; i < h % 7; ++i) frontier.push("host" + std::to_string(h) + ".example", url_of(h, i), i % 3);
  }
  frontier.set_host_delay("host3.example", std::chrono::milliseconds(250));
  frontier.set_host_concurrency("host4.example", 2);
  frontier.set_politeness_group("host5.example", "10.0.0.5");
  frontier.set_politeness_group("host6.example", "10.0.0.5");
  frontier.hold_host("host8.example");
  return frontier;
}

TEST(FrontierImageTest, EncodesTheStateAtCaptureWhateverHappensAfter) {
  Frontier frontier = populated();
  std::vector<Lease> leases;
  leases.reserve(20);
  for (int i = 0; i < 20; ++i) leases.push_back(*frontier.pop_ready(kT0));

  const std::string expected = frontier.snapshot();
  const FrontierImage image = frontier.capture();
  EXPECT_EQ(sealed(image), expected);

  // Put leases back (push_front into the pinned head chunks), drain most queues entirely (their
  // chunks freed by the frontier while pinned), add hosts and URLs, change settings.
  for (size_t i = 0; i < leases.size(); ++i) {
    if (i % 3 == 0) {
      frontier.release(leases[i]);
    } else if (i % 3 == 1) {
      frontier.retry(leases[i], kT0, HostOutcome::ok());
    } else {
      frontier.complete(leases[i], kT0, HostOutcome::ok());
    }
  }
  std::mt19937 rng(7);
  for (int round = 0; round < 20000; ++round) {
    if (auto lease = frontier.pop_ready(kT0)) {
      if (rng() % 4 == 0) {
        frontier.release(*lease);
      } else {
        frontier.complete(*lease, kT0, HostOutcome::ok());
      }
    }
    if (round % 5 == 0) frontier.push("new" + std::to_string(round % 37) + ".example", url_of(1000 + round, round), 1);
  }
  frontier.set_host_delay("host0.example", std::chrono::milliseconds(5));
  frontier.set_politeness_group("host7.example", "10.0.0.7");
  frontier.release_host("host8.example");
  ASSERT_NE(frontier.snapshot(), expected);  // the frontier did change

  EXPECT_EQ(sealed(image), expected);
  EXPECT_EQ(image.queued_urls(), Frontier::restore(expected, no_delay(4)).stats().queued - 20);
}

TEST(FrontierImageTest, OutlivesItsFrontier) {
  std::string expected;
  FrontierImage image;
  {
    Frontier frontier = populated();
    expected = frontier.snapshot();
    image = frontier.capture();
  }
  EXPECT_EQ(sealed(image), expected);
}

TEST(FrontierImageTest, SeveralImagesPinTheSameChunks) {
  Frontier frontier = populated();
  const std::string first_bytes = frontier.snapshot();
  FrontierImage first = frontier.capture();
  for (int i = 0; i < 3000; ++i) {
    auto lease = frontier.pop_ready(kT0);
    ASSERT_TRUE(lease.has_value());
    frontier.complete(*lease, kT0, HostOutcome::ok());
  }
  const std::string second_bytes = frontier.snapshot();
  FrontierImage second = frontier.capture();
  first = FrontierImage();  // drops the first pins while the second still holds some chunks
  while (auto lease = frontier.pop_ready(kT0)) frontier.complete(*lease, kT0, HostOutcome::ok());
  EXPECT_EQ(sealed(second), second_bytes);
  EXPECT_NE(second_bytes, first_bytes);
}

}  // namespace
}  // namespace bloomcrawl
