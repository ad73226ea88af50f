// The disk frontier (FrontierOptions::store_directory): scheduling identical to the RAM frontier
// across the RAM/disk boundary, checkpoints through a directory, reopening, and clear errors for
// a damaged checkpoint. Time is an explicit fake clock; nothing sleeps.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "frontier/frontier.h"
#include "tests/support/frontier_testing.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

using testing::kT0;
using testing::numbered;

using std::chrono::milliseconds;
namespace fs = std::filesystem;

FrontierOptions disk_options(const fs::path& store, uint64_t memory_limit) {
  FrontierOptions options;
  options.default_delay = milliseconds(0);
  options.store_directory = store.string();
  options.memory_limit_bytes = memory_limit;
  return options;
}

struct Popped {
  std::string host;
  std::string url;
  uint32_t depth;
  bool operator==(const Popped&) const = default;
};

// Pops and completes until nothing is ready, the clock moving `step` after each completion.
std::vector<Popped> drain(Frontier& frontier, Clock::time_point now, Clock::duration step = {}) {
  std::vector<Popped> out;
  while (auto lease = frontier.pop_ready(now)) {
    out.push_back({lease->entry.host, lease->entry.url, lease->entry.depth});
    frontier.complete(*lease, now, HostOutcome::ok());
    now += step;
  }
  return out;
}

// Every queued URL by for_each_queued(), in its order.
std::vector<Popped> queued_urls(const Frontier& frontier) {
  std::vector<Popped> out;
  frontier.for_each_queued([&](std::string_view host, std::string_view url, uint32_t depth) {
    out.push_back({std::string(host), std::string(url), depth});
  });
  return out;
}

// Drives a RAM frontier and a disk frontier through the same random operations (pushes at
// several depths, pops, completions, releases, retries, drops, delays, groups, holds) and
// requires the same lease every time. One request per host at a time: with several, leases
// given back come out in push order on disk but in reverse order of release in RAM
// (docs/frontier.md, "Which URLs are where").
void expect_same_as_ram(uint64_t memory_limit, uint32_t seed) {
  testing::TempDir dir;
  FrontierOptions ram_options = disk_options("", 0);
  ram_options.store_directory.clear();
  ram_options.default_delay = milliseconds(5);
  FrontierOptions on_disk = disk_options(dir.path() / "store", memory_limit);
  on_disk.default_delay = milliseconds(5);
  Frontier ram(ram_options);
  Frontier disk(on_disk);
  std::mt19937 random(seed);
  Clock::time_point now = kT0;
  std::vector<Lease> ram_leases;
  std::vector<Lease> disk_leases;
  uint64_t pushed = 0;
  for (int step = 0; step < 6000; ++step) {
    const uint32_t op = random() % 100;
    if (op < 45) {
      const std::string host = numbered("h", random() % 12);
      const std::string url = numbered("https://" + host + "/page-", pushed++);
      const uint32_t depth = random() % 4;
      ASSERT_EQ(ram.push(host, url, depth), disk.push(host, url, depth));
    } else if (op < 75) {
      auto a = ram.pop_ready(now);
      auto b = disk.pop_ready(now);
      ASSERT_EQ(a.has_value(), b.has_value()) << "step " << step;
      if (!a) continue;
      ASSERT_EQ(a->entry.url, b->entry.url) << "step " << step;
      ASSERT_EQ(a->entry.depth, b->entry.depth);
      ASSERT_EQ(a->entry.host, b->entry.host);
      ASSERT_EQ(a->surplus, b->surplus) << "step " << step;
      ram_leases.push_back(*a);
      disk_leases.push_back(*b);
    } else if (op < 93 && !ram_leases.empty()) {
      const size_t i = random() % ram_leases.size();
      const uint32_t how = random() % 10;
      if (how < 6) {
        ram.complete(ram_leases[i], now, HostOutcome::ok());
        disk.complete(disk_leases[i], now, HostOutcome::ok());
      } else if (how < 7) {
        ram.retry(ram_leases[i], now, HostOutcome::backoff(now + milliseconds(20)));
        disk.retry(disk_leases[i], now, HostOutcome::backoff(now + milliseconds(20)));
      } else if (how < 9) {
        ram.release(ram_leases[i]);
        disk.release(disk_leases[i]);
      } else {
        ram.drop(ram_leases[i]);
        disk.drop(disk_leases[i]);
      }
      ram_leases.erase(ram_leases.begin() + static_cast<ptrdiff_t>(i));
      disk_leases.erase(disk_leases.begin() + static_cast<ptrdiff_t>(i));
    } else if (op < 95) {
      const std::string host = numbered("h", random() % 12);
      const std::string group = numbered("g", random() % 3);
      ram.set_politeness_group(host, group);
      disk.set_politeness_group(host, group);
    } else if (op < 97) {
      const std::string host = numbered("h", random() % 12);
      ram.hold_host(host);
      disk.hold_host(host);
    } else {
      const std::string host = numbered("h", random() % 12);
      ram.release_host(host, now);
      disk.release_host(host, now);
    }
    now += milliseconds(random() % 3);
    ASSERT_EQ(ram.stats(false).queued, disk.stats(false).queued) << "step " << step;
    if (step % 1000 == 999) {
      const std::vector<Popped> queued = queued_urls(disk);
      ASSERT_EQ(queued_urls(ram), queued) << "step " << step;
      ASSERT_EQ(queued.size(), disk.stats(false).queued);
    }
  }
  for (size_t i = 0; i < ram_leases.size(); ++i) {
    ram.complete(ram_leases[i], now, HostOutcome::ok());
    disk.complete(disk_leases[i], now, HostOutcome::ok());
  }
  for (const std::string& host : ram.held_hosts()) {
    ram.release_host(host);
    disk.release_host(host);
  }
  now += std::chrono::hours(1);
  const std::vector<Popped> from_ram = drain(ram, now, std::chrono::seconds(1));
  const std::vector<Popped> from_disk = drain(disk, now, std::chrono::seconds(1));
  ASSERT_EQ(from_ram.size(), from_disk.size());
  for (size_t i = 0; i < from_ram.size(); ++i) {
    ASSERT_EQ(from_ram[i].url, from_disk[i].url) << "final drain, URL " << i << " of " << from_ram.size();
    ASSERT_EQ(from_ram[i].depth, from_disk[i].depth);
  }
  EXPECT_EQ(ram.stats().queued, 0u);
  EXPECT_EQ(ram.stats().in_flight, 0u);
  EXPECT_EQ(disk.stats().queued, 0u);
  EXPECT_EQ(disk.stats().in_flight, 0u);
}

TEST(DiskFrontierTest, SchedulesAsTheRamFrontierWithEveryUrlOnDisk) { expect_same_as_ram(1, 1); }
TEST(DiskFrontierTest, SchedulesAsTheRamFrontierAcrossTheRamDiskBoundary) { expect_same_as_ram(16 << 10, 2); }
TEST(DiskFrontierTest, SchedulesAsTheRamFrontierWithRoomForEveryUrl) { expect_same_as_ram(64 << 20, 3); }

TEST(DiskFrontierTest, ServesBreadthFirstWhenShallowUrlsArriveAfterDeepOnes) {
  testing::TempDir dir;
  // Room for a few URLs in RAM: the deep ones fill it, the shallow ones must still come first.
  Frontier frontier(disk_options(dir.path() / "store", 2 << 10));
  std::vector<Popped> expected;
  for (uint32_t depth : {3u, 2u, 1u}) {
    for (int i = 0; i < 20; ++i) frontier.push("h", numbered("https://h/d" + std::to_string(depth) + "-", i), depth);
  }
  for (uint32_t depth : {1u, 2u, 3u}) {
    for (int i = 0; i < 20; ++i)
      expected.push_back({"h", numbered("https://h/d" + std::to_string(depth) + "-", i), depth});
  }
  EXPECT_EQ(drain(frontier, kT0), expected);
}

TEST(DiskFrontierTest, ServesManyHostsEachInOrder) {
  testing::TempDir dir;
  Frontier frontier(disk_options(dir.path() / "store", 64 << 10));
  constexpr int kHosts = 3000;
  for (int round = 0; round < 4; ++round) {
    for (int h = 0; h < kHosts; ++h) frontier.push(numbered("h", h), numbered("https://x/", round), 1);
  }
  EXPECT_EQ(frontier.stats().queued, 4u * kHosts);
  std::vector<int> next(kHosts, 0);
  for (const Popped& popped : drain(frontier, kT0)) {
    const int h = std::stoi(popped.host.substr(1));
    EXPECT_EQ(popped.url, numbered("https://x/", next[h]++));
  }
  for (int h = 0; h < kHosts; ++h) ASSERT_EQ(next[h], 4) << h;
}

// The frontier as a RAM snapshot would restore it: the reference for a checkpoint's content.
std::vector<Popped> drain_snapshot(const std::string& snapshot) {
  FrontierOptions options;
  options.default_delay = milliseconds(0);
  Frontier restored = Frontier::restore(snapshot, options);
  return drain(restored, kT0);
}

// Pushes over a few hosts into a RAM and a disk frontier alike; pops `leased` of each.
void fill(Frontier& ram, Frontier& disk, int first, int count, std::vector<Lease>* ram_leases,
          std::vector<Lease>* disk_leases, int leased) {
  for (int i = first; i < first + count; ++i) {
    const std::string host = numbered("h", i % 7);
    ram.push(host, numbered("https://" + host + "/p", i), 1 + i % 3);
    disk.push(host, numbered("https://" + host + "/p", i), 1 + i % 3);
  }
  for (int i = 0; i < leased; ++i) {
    ram_leases->push_back(*ram.pop_ready(kT0));
    disk_leases->push_back(*disk.pop_ready(kT0));
  }
}

TEST(DiskFrontierTest, CheckpointHoldsTheQueueAtItsInstantWhileTheFrontierGoesOn) {
  testing::TempDir dir;
  FrontierOptions ram_options;
  ram_options.default_delay = milliseconds(0);
  ram_options.default_concurrency = 4;
  FrontierOptions options = disk_options(dir.path() / "live", 4 << 10);
  options.default_concurrency = 4;
  Frontier ram(ram_options);
  Frontier disk(options);
  std::vector<Lease> ram_leases;
  std::vector<Lease> disk_leases;
  fill(ram, disk, 0, 300, &ram_leases, &disk_leases, 12);
  for (int i = 0; i < 5; ++i) {  // pages done before the checkpoint
    ram.complete(ram_leases[i], kT0, HostOutcome::ok());
    disk.complete(disk_leases[i], kT0, HostOutcome::ok());
  }
  ram.set_host_delay("h1", milliseconds(7));
  disk.set_host_delay("h1", milliseconds(7));
  ram.set_politeness_group("h2", "server");
  disk.set_politeness_group("h2", "server");
  const std::string expected_snapshot = ram.snapshot();
  const FrontierCheckpointStats stats = disk.checkpoint(dir.path() / "gen1");
  EXPECT_EQ(stats.queued, 300u - 5u);
  EXPECT_GT(stats.state_bytes, 0u);
  EXPECT_TRUE(fs::exists(dir.path() / "gen1" / "frontier-state"));

  // The live frontier goes on: more pushes, the remaining leases completed, more pops.
  std::vector<Lease> unused_ram;
  std::vector<Lease> unused_disk;
  fill(ram, disk, 300, 100, &unused_ram, &unused_disk, 0);
  for (size_t i = 5; i < ram_leases.size(); ++i) {
    ram.complete(ram_leases[i], kT0, HostOutcome::ok());
    disk.complete(disk_leases[i], kT0, HostOutcome::ok());
  }
  EXPECT_EQ(drain(ram, kT0), drain(disk, kT0));

  // The checkpoint still reads as of its instant: leases as released, later changes absent.
  Frontier restored = Frontier::open_checkpoint(dir.path() / "gen1", disk_options(dir.path() / "restored", 4 << 10));
  EXPECT_EQ(restored.stats().queued, 300u - 5u);
  EXPECT_EQ(restored.stats().dispatched, 5u);
  EXPECT_EQ(drain(restored, kT0 + std::chrono::hours(1)), drain_snapshot(expected_snapshot));
}

TEST(DiskFrontierTest, ReopensAReopenedCheckpoint) {
  testing::TempDir dir;
  FrontierOptions ram_options;
  ram_options.default_delay = milliseconds(0);
  Frontier ram(ram_options);
  Frontier disk(disk_options(dir.path() / "live", 1));
  std::vector<Lease> ram_leases;
  std::vector<Lease> disk_leases;
  fill(ram, disk, 0, 200, &ram_leases, &disk_leases, 3);
  disk.checkpoint(dir.path() / "gen1");
  fill(ram, disk, 200, 50, &ram_leases, &disk_leases, 0);  // stale in gen1: pushed after its cut
  Frontier second = Frontier::open_checkpoint(dir.path() / "gen1", disk_options(dir.path() / "live2", 1));
  Frontier ram_second = Frontier::restore(
      [&] {
        Frontier reference(ram_options);
        std::vector<Lease> a;
        std::vector<Lease> b;
        Frontier scratch(ram_options);
        fill(reference, scratch, 0, 200, &a, &b, 3);
        return reference.snapshot();
      }(),
      ram_options);
  // Generation 2 from the reopened store, after pops, completions and pushes.
  std::vector<Lease> ram2;
  std::vector<Lease> disk2;
  fill(ram_second, second, 1000, 40, &ram2, &disk2, 6);
  ram_second.complete(ram2[0], kT0, HostOutcome::ok());
  second.complete(disk2[0], kT0, HostOutcome::ok());
  // Leases and the URLs pushed after gen1's cut (stale in the reopened store) are not queued.
  EXPECT_EQ(queued_urls(second), queued_urls(ram_second));
  const std::string expected = ram_second.snapshot();
  second.checkpoint(dir.path() / "gen2");
  Frontier third = Frontier::open_checkpoint(dir.path() / "gen2", disk_options(dir.path() / "live3", 1));
  EXPECT_EQ(queued_urls(third), queued_urls(Frontier::restore(expected, ram_options)));
  EXPECT_EQ(drain(third, kT0 + std::chrono::hours(1)), drain_snapshot(expected));
}

TEST(DiskFrontierTest, ReopenedHostsKeepTheirSettings) {
  testing::TempDir dir;
  FrontierOptions options = disk_options(dir.path() / "live", 1);
  options.hold_new_hosts = true;
  Frontier disk(options);
  disk.push("held", "https://held/", 0);
  disk.push("open", "https://open/", 0);
  disk.release_host("open");
  disk.set_host_delay("open", milliseconds(50));
  disk.checkpoint(dir.path() / "gen");
  FrontierOptions reopen = disk_options(dir.path() / "live2", 1);
  Frontier restored = Frontier::open_checkpoint(dir.path() / "gen", reopen);
  EXPECT_EQ(restored.held_hosts(), std::vector<std::string>{"held"});
  auto first = restored.pop_ready(kT0);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->entry.url, "https://open/");
  restored.complete(*first, kT0, HostOutcome::ok());
  restored.push("open", "https://open/2", 1);
  EXPECT_FALSE(restored.pop_ready(kT0 + milliseconds(49)));  // the saved 50 ms delay applies
  EXPECT_TRUE(restored.pop_ready(kT0 + milliseconds(50)));
}

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A checkpoint of 2000 URLs whose store has at least one SST file; returns that file.
fs::path checkpoint_with_a_table(const fs::path& root) {
  Frontier disk(disk_options(root / "live", 1));
  for (int i = 0; i < 2000; ++i) disk.push(numbered("h", i % 10), numbered("https://example.com/page", i), 1);
  disk.checkpoint(root / "gen");
  for (const fs::directory_entry& entry : fs::directory_iterator(root / "gen" / "store")) {
    if (entry.path().extension() == ".sst") return entry.path();
  }
  ADD_FAILURE() << "no SST file in the checkpoint";
  return {};
}

std::string open_error(const fs::path& root) {
  try {
    Frontier restored = Frontier::open_checkpoint(root / "gen", disk_options(root / "live2", 1));
    drain(restored, kT0);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "no error";
}

TEST(DiskFrontierTest, AMissingStoreFileIsAnErrorNamingIt) {
  testing::TempDir dir;
  const fs::path table = checkpoint_with_a_table(dir.path());
  fs::remove(table);
  // RocksDB names the file by its number (it tries NUMBER.sst, then the legacy NUMBER.ldb).
  EXPECT_NE(open_error(dir.path()).find(table.stem().string()), std::string::npos) << open_error(dir.path());
}

TEST(DiskFrontierTest, ACorruptedStoreFileIsAnErrorNamingIt) {
  testing::TempDir dir;
  const fs::path table = checkpoint_with_a_table(dir.path());
  std::string bytes = read_all(table);
  for (size_t i = 0; i < bytes.size() / 2; ++i) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
  fs::remove(table);  // the checkpoint's file is a hard link: write a new one, as a bad disk would
  std::ofstream(table, std::ios::binary) << bytes;
  EXPECT_NE(open_error(dir.path()).find(table.filename().string()), std::string::npos) << open_error(dir.path());
}

TEST(DiskFrontierTest, AMissingOrCorruptedStateFileIsAnErrorNamingIt) {
  testing::TempDir dir;
  checkpoint_with_a_table(dir.path());
  const fs::path state = dir.path() / "gen" / "frontier-state";
  std::string bytes = read_all(state);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 1);
  fs::remove(state);
  EXPECT_NE(open_error(dir.path()).find(state.string()), std::string::npos) << open_error(dir.path());
  std::ofstream(state, std::ios::binary) << bytes;
  const std::string error = open_error(dir.path());
  EXPECT_NE(error.find(state.string()), std::string::npos) << error;
  EXPECT_NE(error.find("checksum mismatch"), std::string::npos) << error;
}

TEST(DiskFrontierTest, TheLiveStoreCannotBeTheCheckpointItself) {
  testing::TempDir dir;
  checkpoint_with_a_table(dir.path());
  EXPECT_THROW(Frontier::open_checkpoint(dir.path() / "gen", disk_options(dir.path() / "gen" / "store", 1)),
               std::runtime_error);
  Frontier restored = Frontier::open_checkpoint(dir.path() / "gen", disk_options(dir.path() / "live2", 1));
  EXPECT_EQ(drain(restored, kT0).size(), 2000u);  // the checkpoint is intact
}

TEST(DiskFrontierTest, ARamSnapshotRestoresIntoADiskFrontier) {
  testing::TempDir dir;
  FrontierOptions ram_options;
  ram_options.default_delay = milliseconds(0);
  Frontier ram(ram_options);
  for (int i = 0; i < 100; ++i) ram.push(numbered("h", i % 3), numbered("https://x/", i), i % 4);
  const std::string snapshot = ram.snapshot();
  Frontier disk = Frontier::restore(snapshot, disk_options(dir.path() / "live", 1));
  EXPECT_EQ(drain(disk, kT0), drain_snapshot(snapshot));
}

TEST(DiskFrontierTest, ARamFrontierHasNoDirectoryCheckpoint) {
  testing::TempDir dir;
  Frontier ram(FrontierOptions{});
  EXPECT_THROW(ram.checkpoint(dir.path() / "gen"), std::logic_error);
}

// As in RAM (frontier_limits_test.cc), from a checkpoint opened with a lower per-host page limit:
// each host dispatches up to it, and the URLs past it stay in the store (config/README.md,
// scope.max_pages_per_host: a resume with a higher limit fetches them).
TEST(DiskFrontierTest, ALoweredPerHostLimitKeepsTheUrlsPastItInTheStore) {
  testing::TempDir dir;
  Frontier before(disk_options(dir.path() / "live", 1));
  for (uint64_t i = 0; i < 40; ++i) before.push("over", numbered("http://over/", i), 0);
  for (uint64_t i = 0; i < 30; ++i) before.push("under", numbered("http://under/", i), 0);
  for (int fetched = 0; fetched < 3;) {
    auto lease = before.pop_ready(kT0);
    ASSERT_TRUE(lease);
    if (lease->entry.host == "over") {
      before.complete(*lease, kT0, HostOutcome::ok());
      ++fetched;
    } else {
      before.release(*lease);
    }
  }
  before.checkpoint(dir.path() / "gen1");
  FrontierOptions lowered = disk_options(dir.path() / "restored", 1);
  lowered.max_pages_per_host = 3;
  Frontier after = Frontier::open_checkpoint(dir.path() / "gen1", lowered);
  const std::vector<Popped> rest = drain(after, kT0);
  ASSERT_EQ(rest.size(), 3u) << "over is at its limit; under fetches 3";
  for (uint64_t i = 0; i < rest.size(); ++i) EXPECT_EQ(rest[i].url, numbered("http://under/", i));
  EXPECT_EQ(after.stats().queued, 64u);
  EXPECT_TRUE(after.empty_and_idle());
  std::vector<std::string> queued_over;
  after.for_each_queued([&](std::string_view host, std::string_view url, uint32_t) {
    if (host == "over") queued_over.emplace_back(url);
  });
  ASSERT_EQ(queued_over.size(), 37u);
  EXPECT_EQ(queued_over.front(), "http://over/3");
}

}  // namespace
}  // namespace bloomcrawl
