// What a crawl checkpoint costs at scale: a seen filter of 100M keys and a frontier of 10M URLs
// over 1M hosts (a large broad crawl), checkpointed twice the way the crawler does it
// (crawler/pipeline/crawl_checkpointer.cc): the pause is Frontier::capture() taken while the
// pipeline is held; the filter copy (SeenFilter::snapshot(), concurrent with inserts in a crawl),
// the frontier's encoding and the write happen after, off the critical path. The second
// checkpoint follows 1% more inserts, as a periodic one would: its sealed layers are already on
// disk and are not written again.
// The pause is reported against a baseline measured in the same run: memcpy of the filter's
// bytes (what a naive "copy everything under the lock" checkpoint would at least cost).
// Usage: checkpoint_bench [keys] [urls] [hosts] [directory]
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "crawler/persist/crawl_checkpoint.h"
#include "frontier/frontier.h"
#include "frontier/frontier_snapshot.h"
#include "seenfilter/seen_filter.h"

namespace {

using namespace bloomcrawl;
using Seconds = std::chrono::duration<double>;

double since(std::chrono::steady_clock::time_point start) {
  return Seconds(std::chrono::steady_clock::now() - start).count();
}

// Distinct URL-shaped keys: key i is a function of i only, so threads fill disjoint ranges.
std::string key_of(uint64_t i, std::string& buf) {
  buf.assign("https://host");
  buf.append(std::to_string(i % 1'000'003)).append(".example.org/path/");
  buf.append(std::to_string(i)).append("?q=1");
  return buf;
}

void fill_filter(SeenFilter& filter, uint64_t from, uint64_t to) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::string buf;
      for (uint64_t i = from + t; i < to; i += threads) filter.insert(key_of(i, buf));
    });
  }
  for (std::thread& th : pool) th.join();
}

void fill_frontier(Frontier& frontier, uint64_t urls, uint64_t hosts) {
  std::string host;
  std::string url;
  for (uint64_t i = 0; i < urls; ++i) {
    const uint64_t h = (i * 0x9e3779b97f4a7c15ULL >> 11) % hosts;
    host.assign("www.site").append(std::to_string(h)).append(".example.com");
    url.assign("https://").append(host).append("/articles/").append(std::to_string(i)).append("/some-title.html");
    frontier.push(host, url, 1 + uint32_t(i % 2));
  }
}

// The longest a frontier call waited while `work` ran: the stall the crawl's fetch completions
// see, which excludes whatever the work does after releasing the frontier's lock.
double longest_frontier_stall(const Frontier& frontier, const std::function<void()>& work) {
  std::atomic<bool> done{false};
  double longest = 0;
  std::thread prober([&] {
    while (!done.load()) {
      const auto t = std::chrono::steady_clock::now();
      (void)frontier.closed();  // O(1) under the lock: times the wait, not the call
      longest = std::max(longest, since(t));
    }
  });
  work();
  done = true;
  prober.join();
  return longest;
}

struct Measure {
  double pause_s = 0;  // Frontier::capture()
  double frontier_stall_s = 0;
  double filter_snapshot_s = 0;
  double frontier_encode_s = 0;
  double write_s = 0;
  uint64_t bytes_written = 0;
  uint64_t frontier_bytes = 0;
};

Measure checkpoint(const SeenFilter& filter, const Frontier& frontier, const std::filesystem::path& dir,
                   uint64_t generation) {
  Measure m;
  CrawlCheckpoint cp;
  FrontierImage image;
  m.frontier_stall_s = longest_frontier_stall(frontier, [&] {
    const auto start = std::chrono::steady_clock::now();
    image = frontier.capture();  // the whole pause
    m.pause_s = since(start);
  });
  auto t = std::chrono::steady_clock::now();
  cp.filter = filter.snapshot();
  m.filter_snapshot_s = since(t);
  t = std::chrono::steady_clock::now();
  cp.frontier = image.encode_body();
  seal_frontier_snapshot(cp.frontier);
  m.frontier_encode_s = since(t);
  m.frontier_bytes = cp.frontier.size();
  cp.manifest.generation = generation;
  cp.manifest.config = nlohmann::json::object();
  cp.manifest.stats = nlohmann::json::object();
  cp.manifest.counters = nlohmann::json::object();
  t = std::chrono::steady_clock::now();
  m.bytes_written = save_crawl_checkpoint(cp, dir, 2).bytes_written;
  m.write_s = since(t);
  return m;
}

void print_row(const char* name, const Measure& m, double memcpy_s) {
  std::printf("| %s | %.1f | %.1f | %.3f | %.1f | %.1f | %.1f | %.1f |\n", name, m.pause_s * 1e3,
              m.frontier_stall_s * 1e3, m.pause_s / memcpy_s, m.filter_snapshot_s * 1e3, m.frontier_encode_s * 1e3,
              m.write_s, double(m.bytes_written) / 1e6);
}

int run(int argc, char** argv) {
  const uint64_t keys = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100'000'000;
  const uint64_t urls = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10'000'000;
  const uint64_t hosts = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1'000'000;
  const std::filesystem::path dir = argc > 4 ? argv[4] : std::filesystem::temp_directory_path() / "checkpoint_bench";
  std::filesystem::remove_all(dir);

  SeenFilterOptions options;
  options.memory_limit_bytes = uint64_t{16} << 30;
  SeenFilter filter(options);
  auto t = std::chrono::steady_clock::now();
  fill_filter(filter, 0, keys);
  std::printf("filter: %llu keys inserted in %.1f s\n", (unsigned long long)keys, since(t));
  FrontierOptions frontier_options;
  Frontier frontier(frontier_options);
  t = std::chrono::steady_clock::now();
  fill_frontier(frontier, urls, hosts);
  std::printf("frontier: %llu URLs over %llu hosts pushed in %.1f s\n", (unsigned long long)urls,
              (unsigned long long)hosts, since(t));

  const SeenFilterStats fs = filter.stats(false);
  std::vector<char> copy(fs.bytes);
  std::memset(copy.data(), 1, copy.size());  // fault the pages in before timing
  t = std::chrono::steady_clock::now();
  {
    FilterSnapshot whole = filter.snapshot();
    size_t at = 0;
    for (const FilterSnapshot::Layer& l : whole.layers) {
      const size_t n = std::min<size_t>(l.bits->word_count() * 8, copy.size() - at);
      std::memcpy(copy.data() + at, l.bits->words(), n);
      at += n;
    }
  }
  const double memcpy_s = since(t);

  const Measure first = checkpoint(filter, frontier, dir, 1);
  fill_filter(filter, keys, keys + keys / 100);
  const Measure second = checkpoint(filter, frontier, dir, 2);

  std::printf("\nfilter: %zu layers, %.1f MB; frontier snapshot %.1f MB; baseline: copying all filter bits %.1f ms\n\n",
              fs.layers.size(), double(fs.bytes) / 1e6, double(first.frontier_bytes) / 1e6, memcpy_s * 1e3);
  std::printf(
      "| checkpoint | pause ms (frontier capture) | longest frontier wait ms | pause / copy-all | "
      "after the pause: filter copy ms | frontier encode ms | write s | MB written |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  print_row("first (every layer written)", first, memcpy_s);
  print_row("second (+1% keys: sealed layers reused)", second, memcpy_s);
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {  // a full disk or a bad directory: say so rather than abort
    std::fprintf(stderr, "checkpoint_bench: %s\n", e.what());
    return 1;
  }
}
