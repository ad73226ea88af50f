// Frontier memory and throughput on a synthetic crawl: N URLs spread at random over H hosts
// (default 10M over 1M, about 10 per host, as a broad crawl looks), realistic URL shapes, two
// depths alive per host.
//
// Memory is the malloc'd bytes (mallinfo2: arena + mmapped) held after the pushes, divided by
// the URLs queued, reported against the raw URL bytes (the floor for storing them uncompressed)
// and against a naive baseline measured in the same run on the same data: an
// unordered_map<host, deque<string>>. Throughput is push and pop+complete per second, also as a
// ratio to the baseline's push and pop; snapshot size and speed are printed too.
// Usage: frontier_bench [urls] [hosts] [baseline_urls]
#include <malloc.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <unordered_map>

#include "bench/frontier_workload.h"
#include "frontier/frontier.h"

namespace {

using bloomcrawl::Clock;

size_t heap_in_use() {
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

using bloomcrawl::bench::Workload;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

struct Result {
  double bytes_per_url;
  double raw_bytes_per_url;
  double push_per_second;
  double pop_per_second;
};

Result run_frontier(uint64_t urls, uint64_t hosts) {
  bloomcrawl::FrontierOptions options;
  options.default_delay = std::chrono::milliseconds(0);
  const size_t before = heap_in_use();
  Result result{};
  {
    bloomcrawl::Frontier frontier(options);
    Workload workload{hosts};
    uint64_t raw = 0;
    auto start = Clock::now();
    for (uint64_t i = 0; i < urls; ++i) {
      workload.next();
      raw += workload.url.size();
      frontier.push(workload.host, workload.url, workload.depth);
    }
    result.push_per_second = urls / seconds_since(start);
    const size_t used = heap_in_use() - before;
    const bloomcrawl::FrontierStats stats = frontier.stats();
    result.bytes_per_url = static_cast<double>(used) / urls;
    result.raw_bytes_per_url = static_cast<double>(raw) / urls;
    std::printf("frontier: %llu URLs over %llu hosts: heap %.1f MB, own estimate %.1f MB\n",
                static_cast<unsigned long long>(stats.queued), static_cast<unsigned long long>(stats.hosts), used / 1e6,
                stats.bytes_used / 1e6);
    start = Clock::now();
    {
      const std::string snapshot = frontier.snapshot();
      const double snapshot_seconds = seconds_since(start);
      start = Clock::now();
      const bloomcrawl::Frontier restored = bloomcrawl::Frontier::restore(snapshot, options);
      std::printf("snapshot: %.1f bytes per URL, written in %.2f s, restored in %.2f s (%llu URLs)\n",
                  static_cast<double>(snapshot.size()) / urls, snapshot_seconds, seconds_since(start),
                  static_cast<unsigned long long>(restored.stats().queued));
    }
    start = Clock::now();
    const Clock::time_point now = Clock::now();
    uint64_t popped = 0;
    while (auto lease = frontier.pop_ready(now)) {
      frontier.complete(*lease, now, bloomcrawl::HostOutcome::ok());
      ++popped;
    }
    result.pop_per_second = popped / seconds_since(start);
    if (popped != urls)
      std::printf("error: popped %llu of %llu\n", static_cast<unsigned long long>(popped),
                  static_cast<unsigned long long>(urls));
  }
  return result;
}

Result run_baseline(uint64_t urls, uint64_t hosts) {
  const size_t before = heap_in_use();
  Result result{};
  std::unordered_map<std::string, std::deque<std::string>> queues;
  Workload workload{hosts};
  uint64_t raw = 0;
  auto start = Clock::now();
  for (uint64_t i = 0; i < urls; ++i) {
    workload.next();
    raw += workload.url.size();
    queues[workload.host].push_back(workload.url);
  }
  result.push_per_second = urls / seconds_since(start);
  result.bytes_per_url = static_cast<double>(heap_in_use() - before) / urls;
  result.raw_bytes_per_url = static_cast<double>(raw) / urls;
  start = Clock::now();
  std::string sink;
  for (auto& [host, queue] : queues) {
    while (!queue.empty()) {
      sink = std::move(queue.front());
      queue.pop_front();
    }
  }
  result.pop_per_second = urls / seconds_since(start);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t urls = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
  const uint64_t hosts = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1'000'000;
  const uint64_t baseline_urls = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : urls;
  const uint64_t baseline_hosts = std::max<uint64_t>(1, hosts * baseline_urls / std::max<uint64_t>(urls, 1));
  const Result baseline = run_baseline(baseline_urls, baseline_hosts);
  const Result frontier = run_frontier(urls, hosts);
  std::printf("\n| measure | frontier | naive map<host, deque<string>> | ratio |\n|---|---|---|---|\n");
  std::printf("| heap bytes per queued URL | %.1f | %.1f | %.2f |\n", frontier.bytes_per_url, baseline.bytes_per_url,
              frontier.bytes_per_url / baseline.bytes_per_url);
  std::printf("| raw URL bytes per URL | %.1f | %.1f | |\n", frontier.raw_bytes_per_url, baseline.raw_bytes_per_url);
  std::printf("| heap / raw URL bytes | %.2f | %.2f | |\n", frontier.bytes_per_url / frontier.raw_bytes_per_url,
              baseline.bytes_per_url / baseline.raw_bytes_per_url);
  std::printf("| push per second | %.0f | %.0f | %.2f |\n", frontier.push_per_second, baseline.push_per_second,
              frontier.push_per_second / baseline.push_per_second);
  std::printf("| pop+complete per second | %.0f | %.0f (pop only) | %.2f |\n", frontier.pop_per_second,
              baseline.pop_per_second, frontier.pop_per_second / baseline.pop_per_second);
  std::printf("\nfrontier: %llu URLs over %llu hosts; baseline: %llu URLs over %llu hosts\n",
              static_cast<unsigned long long>(urls), static_cast<unsigned long long>(hosts),
              static_cast<unsigned long long>(baseline_urls), static_cast<unsigned long long>(baseline_hosts));
  return 0;
}
