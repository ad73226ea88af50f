// Snapshot/restore: round trip of queues, per-host settings and page counts, in-flight leases put
// back, and clear errors for corrupted bytes.
#include "frontier/frontier_snapshot.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "base/coding.h"
#include "frontier/frontier.h"
#include "tests/support/frontier_testing.h"

namespace bloomcrawl {
namespace {

using testing::kT0;
using testing::no_delay;

using std::chrono::milliseconds;
using std::chrono::seconds;

// Pops everything dispatchable at `now`, completing each lease at once.
std::vector<std::string> drain_urls(Frontier& frontier, Clock::time_point now) {
  std::vector<std::string> urls;
  while (auto lease = frontier.pop_ready(now)) {
    urls.push_back(lease->entry.url);
    frontier.complete(*lease, now, HostOutcome::ok());
  }
  return urls;
}

std::string framed(std::string_view body) {
  std::string bytes(kFrontierSnapshotMagic);
  bytes.append(body);
  const uint32_t crc = frontier_snapshot_checksum(bytes);
  for (int shift = 0; shift < 32; shift += 8) bytes.push_back(static_cast<char>(crc >> shift));
  return bytes;
}

std::string restore_error(std::string_view bytes) {
  try {
    Frontier::restore(bytes, no_delay());
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(FrontierSnapshotTest, RoundTripKeepsQueuesOrderAndInFlightLeases) {
  Frontier original(no_delay());
  original.push("a", "https://a/2", 2);
  original.push("a", "https://a/0", 0);
  original.push("a", "https://a/1", 1);
  original.push("b", "https://b/x", 0);
  original.push("b", "https://b/y", 0);
  auto leased = original.pop_ready(kT0);  // in flight at snapshot time
  ASSERT_TRUE(leased);
  const std::string snapshot = original.snapshot();

  Frontier restored = Frontier::restore(snapshot, no_delay());
  const FrontierStats stats = restored.stats();
  EXPECT_EQ(stats.queued, 5u);
  EXPECT_EQ(stats.in_flight, 0u);
  EXPECT_EQ(stats.dispatched, 0u) << "the in-flight lease was put back";
  EXPECT_EQ(stats.hosts, 2u);

  std::vector<std::string> a_urls;
  std::vector<std::string> b_urls;
  for (const std::string& url : drain_urls(restored, kT0)) (url[8] == 'a' ? a_urls : b_urls).push_back(url);
  EXPECT_EQ(a_urls, (std::vector<std::string>{"https://a/0", "https://a/1", "https://a/2"}));
  EXPECT_EQ(b_urls, (std::vector<std::string>{"https://b/x", "https://b/y"}));
  EXPECT_TRUE(restored.empty_and_idle());
}

TEST(FrontierSnapshotTest, RoundTripKeepsHostSettingsAndPageCounts) {
  FrontierOptions options = no_delay();
  options.max_pages_per_host = 2;
  Frontier original(options);
  original.push("counted", "c1", 0);
  auto lease = original.pop_ready(kT0);
  ASSERT_TRUE(lease);
  original.complete(*lease, kT0, HostOutcome::ok());
  original.push("counted", "c2", 0);
  original.hold_host("held");
  original.push("held", "h1", 0);
  original.set_host_delay("slow", seconds(30));
  original.set_host_concurrency("wide", 4);
  original.set_politeness_group("g1", "ip");
  original.set_politeness_group("g2", "ip");

  Frontier restored = Frontier::restore(original.snapshot(), options);
  EXPECT_EQ(restored.stats().dispatched, 1u);
  EXPECT_EQ(restored.push("counted", "c3", 0), AdmitResult::kQueued);
  EXPECT_EQ(drain_urls(restored, kT0), std::vector<std::string>{"c2"}) << "c3 is past the restored page count";
  restored.release_host("held");
  EXPECT_EQ(drain_urls(restored, kT0), std::vector<std::string>{"h1"});

  restored.push("slow", "s1", 0);
  restored.push("slow", "s2", 0);
  auto slow = restored.pop_ready(kT0);
  ASSERT_TRUE(slow);
  restored.complete(*slow, kT0, HostOutcome::ok());
  EXPECT_EQ(restored.next_ready_time(), kT0 + seconds(30));
  drain_urls(restored, kT0 + seconds(30));

  restored.push("wide", "w1", 0);
  restored.push("wide", "w2", 0);
  EXPECT_TRUE(restored.pop_ready(kT0 + seconds(60)));
  EXPECT_TRUE(restored.pop_ready(kT0 + seconds(60))) << "concurrency 4 survived (default is 1)";

  restored.push("g1", "g1", 0);
  restored.push("g2", "g2", 0);
  EXPECT_TRUE(restored.pop_ready(kT0 + seconds(60)));
  EXPECT_FALSE(restored.pop_ready(kT0 + seconds(60))) << "group membership survived";
}

TEST(FrontierSnapshotTest, ARestoredCrawlDelayStillMeansOneRequestAtATime) {
  FrontierOptions options = no_delay();
  options.default_concurrency = 4;
  Frontier original(options);
  original.set_host_delay("slow", milliseconds(10));
  for (int i = 0; i < 3; ++i) original.push("slow", std::to_string(i), 0);
  Frontier restored = Frontier::restore(original.snapshot(), options);
  EXPECT_TRUE(restored.pop_ready(kT0));
  EXPECT_FALSE(restored.pop_ready(kT0 + seconds(1)));
}

// A resume groups as its own configuration says (FrontierOptions::group_of), not as the
// checkpoint's run did; without group_of the checkpoint's groups (IP addresses) stay.
TEST(FrontierSnapshotTest, GroupOfDecidesGroupsAtRestore) {
  Frontier original(no_delay());
  original.set_politeness_group("a", "10.0.0.1");
  original.set_politeness_group("b", "10.0.0.1");
  original.push("a", "a1", 0);
  original.push("b", "b1", 0);
  original.push("c", "c1", 0);
  const std::string snapshot = original.snapshot();
  const auto dispatchable = [](Frontier& frontier) {
    std::set<std::string> hosts;
    while (auto lease = frontier.pop_ready(kT0)) hosts.insert(lease->entry.host);
    return hosts;
  };

  Frontier kept = Frontier::restore(snapshot, no_delay());
  EXPECT_EQ(dispatchable(kept).size(), 2u) << "a and b still share their address's slot";

  FrontierOptions by_host = no_delay();
  by_host.group_of = [](std::string_view) { return std::string(); };
  Frontier ungrouped = Frontier::restore(snapshot, by_host);
  EXPECT_EQ(dispatchable(ungrouped), (std::set<std::string>{"a", "b", "c"}));

  FrontierOptions by_name = no_delay();
  by_name.group_of = [](std::string_view host) { return host == "a" ? std::string() : std::string("bc"); };
  Frontier regrouped = Frontier::restore(snapshot, by_name);
  const std::set<std::string> first = dispatchable(regrouped);
  EXPECT_EQ(first.size(), 2u);
  EXPECT_TRUE(first.contains("a"));
}

TEST(FrontierSnapshotTest, HoldNewHostsHoldsRestoredHosts) {
  Frontier original(no_delay());
  original.push("h", "u", 0);
  FrontierOptions options = no_delay();
  options.hold_new_hosts = true;
  Frontier restored = Frontier::restore(original.snapshot(), options);
  EXPECT_EQ(restored.held_hosts(), std::vector<std::string>{"h"});
  EXPECT_FALSE(restored.pop_ready(kT0));
  restored.release_host("h");
  EXPECT_TRUE(restored.pop_ready(kT0));
}

// config/README.md scope.max_pages_per_host: the URLs past the limit stay queued, so a later
// restore with a higher limit dispatches them.
TEST(FrontierSnapshotTest, LowerPerHostLimitAtRestoreKeepsTheExcessQueued) {
  Frontier original(no_delay());
  for (int i = 0; i < 5; ++i) original.push("h", std::to_string(i), 0);
  FrontierOptions lower = no_delay();
  lower.max_pages_per_host = 2;
  Frontier restored = Frontier::restore(original.snapshot(), lower);
  EXPECT_EQ(drain_urls(restored, kT0), (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(restored.stats().queued, 3u);
  EXPECT_TRUE(restored.empty_and_idle()) << "nothing more can be dispatched";
  Frontier raised = Frontier::restore(restored.snapshot(), no_delay());
  EXPECT_EQ(drain_urls(raised, kT0), (std::vector<std::string>{"2", "3", "4"}));
}

TEST(FrontierSnapshotTest, EmptyFrontierRoundTrips) {
  Frontier restored = Frontier::restore(Frontier(no_delay()).snapshot(), no_delay());
  EXPECT_TRUE(restored.empty_and_idle());
  EXPECT_EQ(restored.stats().hosts, 0u);
}

TEST(FrontierSnapshotTest, CorruptedBytesAreRejectedWithWhereAndWhat) {
  Frontier original(no_delay());
  original.push("host", "https://host/page", 0);
  const std::string good = original.snapshot();

  EXPECT_NE(restore_error("").find("shorter than the header"), std::string::npos);
  std::string bad_magic = good;
  bad_magic[0] = 'X';
  EXPECT_NE(restore_error(bad_magic).find("bad magic"), std::string::npos);
  std::string bad_version = good;
  bad_version[7] = 9;
  EXPECT_NE(restore_error(bad_version).find("unsupported version 9"), std::string::npos);
  for (size_t at = 8; at < good.size(); ++at) {
    std::string flipped = good;
    flipped[at] ^= 0x20;
    EXPECT_NE(restore_error(flipped).find("checksum mismatch"), std::string::npos) << at;
  }
  EXPECT_NE(restore_error(good.substr(0, good.size() - 1)).find("checksum mismatch"), std::string::npos);
}

TEST(FrontierSnapshotTest, StructurallyInvalidBodiesAreRejected) {
  // Body: group count, then host count and hosts (key, group, flags, delay, concurrency,
  // pages, URL count, URLs as depth + bytes).
  const std::string one_host = std::string("\x00\x01\x01h\x00\x00\x00\x00\x00\x01\x00\x01u", 13);
  EXPECT_EQ(Frontier::restore(framed(one_host), no_delay()).stats().queued, 1u);

  EXPECT_NE(restore_error(framed(one_host + "x")).find("unexpected bytes after the last host at byte 21"),
            std::string::npos);
  const std::string duplicate = std::string("\x00\x02", 2) + one_host.substr(2) + one_host.substr(2);
  EXPECT_NE(restore_error(framed(duplicate)).find("duplicate host key 'h'"), std::string::npos);
  std::string bad_group = one_host;
  bad_group[4] = 3;
  EXPECT_NE(restore_error(framed(bad_group)).find("group index 3 beyond 0 groups at byte 12"), std::string::npos);
  std::string bad_flags = one_host;
  bad_flags[5] = 4;
  EXPECT_NE(restore_error(framed(bad_flags)).find("unknown host flags"), std::string::npos);
  EXPECT_NE(restore_error(framed(std::string("\x00\x7f", 2))).find("host count 127 cannot fit"), std::string::npos);
  EXPECT_NE(restore_error(framed(one_host.substr(0, 12))).find("runs past the end"), std::string::npos);
  std::string huge_depth = one_host.substr(0, 10);
  huge_depth.append("\xff\xff\xff\xff\x1f\x01u", 7);
  EXPECT_NE(restore_error(framed(huge_depth)).find("URL depth 8589934591 exceeds 32 bits"), std::string::npos);
  EXPECT_NE(restore_error(framed(std::string("\x80", 1))).find("malformed varint for group count"), std::string::npos);
}

}  // namespace
}  // namespace bloomcrawl
