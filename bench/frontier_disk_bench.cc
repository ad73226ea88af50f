// The frontier at scale (issue 13, "Frontier at scale"): N URLs packed with their parent as the
// crawler packs them (~140 bytes) over H hosts, then pop+complete of N/10, for one frontier mode
// per process so that peak RSS is that mode's:
//   frontier_disk_bench disk    N H DIR [memory_limit_mb]  disk frontier, store and checkpoints in DIR
//   frontier_disk_bench ram     N H                        today's in-RAM frontier
//   frontier_disk_bench rocksdb N H DIR [memory_limit_mb]  RocksDB alone putting the same keys and
//                                                          values (the store's fill-rate floor)
// Prints "name value" lines (bench/run_frontier_disk_bench.sh tabulates them).
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <sys/resource.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/frontier_workload.h"
#include "bench/process_measures.h"
#include "frontier/frontier.h"

namespace {

namespace fs = std::filesystem;
using bloomcrawl::Clock;
using bloomcrawl::Frontier;
using bloomcrawl::FrontierOptions;
using bloomcrawl::HostOutcome;
using bloomcrawl::bench::cpu_seconds;
using bloomcrawl::bench::files_of;
using bloomcrawl::bench::peak_rss_mb;
using bloomcrawl::bench::total_bytes;
using bloomcrawl::bench::Workload;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

void report(const char* name, double value) { std::printf("%s %.3f\n", name, value); }

// CPU time of the calling thread: the work of a pause, apart from the wall time a loaded machine
// adds by not scheduling it.
double thread_cpu_ms() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

// checkpoint() in its two halves, reporting the pause's thread CPU time as NAME_pause_cpu_ms.
bloomcrawl::FrontierCheckpointStats checkpoint(Frontier& frontier, const fs::path& dir, const char* name) {
  const double cpu_start = thread_cpu_ms();
  bloomcrawl::DiskCheckpointCut cut = frontier.cut_checkpoint();
  const double cut_cpu = thread_cpu_ms() - cpu_start;
  bloomcrawl::FrontierCheckpointStats stats = frontier.write_checkpoint(cut, dir);
  std::printf("%s_pause_cpu_ms %.3f\n", name, cut_cpu);
  return stats;
}

// Bytes a checkpoint wrote: its files that the previous checkpoint does not share (an SST of the
// same name is the same hard-linked file; the small files are rewritten every time).
uint64_t written_since(const std::map<std::string, uint64_t>& now, const std::map<std::string, uint64_t>& before) {
  uint64_t written = 0;
  for (const auto& [name, size] : now) {
    const bool shared = name.ends_with(".sst") && before.contains(name);
    if (!shared) written += size;
  }
  return written;
}

uint64_t push_all(Frontier& frontier, uint64_t urls, uint64_t hosts) {
  Workload workload{hosts, /*with_parent=*/true};
  uint64_t raw = 0;
  for (uint64_t i = 0; i < urls; ++i) {
    workload.next();
    raw += workload.url.size();
    frontier.push(workload.host, workload.url, workload.depth);
  }
  return raw;
}

// Reports pop_complete_per_s and pop_complete_per_cpu_s.
void pop_complete(Frontier& frontier, uint64_t count) {
  const Clock::time_point start = Clock::now();
  const double cpu_start = cpu_seconds();
  const Clock::time_point now = Clock::now();
  uint64_t done = 0;
  while (done < count) {
    auto lease = frontier.pop_ready(now);
    if (!lease) break;
    frontier.complete(*lease, now, HostOutcome::ok());
    ++done;
  }
  if (done != count) std::printf("error: popped %llu of %llu\n", (unsigned long long)done, (unsigned long long)count);
  report("pop_complete_per_s", done / seconds_since(start));
  report("pop_complete_per_cpu_s", done / (cpu_seconds() - cpu_start));
}

FrontierOptions bench_options() {
  FrontierOptions options;
  options.default_delay = std::chrono::milliseconds(0);
  return options;
}

void run_disk(uint64_t urls, uint64_t hosts, const fs::path& dir, uint64_t memory_mb) {
  fs::remove_all(dir);
  FrontierOptions options = bench_options();
  options.store_directory = (dir / "live").string();
  options.memory_limit_bytes = memory_mb << 20;
  {
    Frontier frontier(options);
    Clock::time_point start = Clock::now();
    double cpu_start = cpu_seconds();
    const uint64_t raw = push_all(frontier, urls, hosts);
    report("push_per_s", urls / seconds_since(start));
    report("push_per_cpu_s", urls / (cpu_seconds() - cpu_start));
    report("raw_bytes_per_url", static_cast<double>(raw) / urls);
    report("rss_after_push_mb", peak_rss_mb());

    bloomcrawl::FrontierCheckpointStats stats = checkpoint(frontier, dir / "gen1", "checkpoint1");
    const auto gen1 = files_of(dir / "gen1");
    report("checkpoint1_pause_ms", std::chrono::duration<double, std::milli>(stats.pause).count());
    report("checkpoint1_total_s", std::chrono::duration<double>(stats.total).count());
    report("checkpoint1_written_mb", written_since(gen1, {}) / 1e6);
    report("state_file_bytes", static_cast<double>(stats.state_bytes));
    report("disk_bytes_per_url", static_cast<double>(total_bytes(gen1)) / urls);

    pop_complete(frontier, urls / 10);

    stats = checkpoint(frontier, dir / "gen2", "checkpoint2");
    report("checkpoint2_pause_ms", std::chrono::duration<double, std::milli>(stats.pause).count());
    report("checkpoint2_total_s", std::chrono::duration<double>(stats.total).count());
    report("checkpoint2_written_mb", written_since(files_of(dir / "gen2"), gen1) / 1e6);
    report("live_store_mb", total_bytes(files_of(dir / "live")) / 1e6);
  }
  options.store_directory = (dir / "resumed").string();
  const Clock::time_point start = Clock::now();
  Frontier resumed = Frontier::open_checkpoint(dir / "gen2", options);
  const auto first = resumed.pop_ready(Clock::now());
  report("resume_to_first_dispatch_s", seconds_since(start));
  report("resumed_queued", static_cast<double>(resumed.stats(false).queued + (first ? 1 : 0)));
  report("peak_rss_mb", peak_rss_mb());
}

void run_ram(uint64_t urls, uint64_t hosts) {
  Frontier frontier(bench_options());
  Clock::time_point start = Clock::now();
  const double cpu_start = cpu_seconds();
  push_all(frontier, urls, hosts);
  report("push_per_s", urls / seconds_since(start));
  report("push_per_cpu_s", urls / (cpu_seconds() - cpu_start));
  report("rss_after_push_mb", peak_rss_mb());
  start = Clock::now();
  const bloomcrawl::FrontierImage image = frontier.capture();
  report("snapshot_pause_ms", seconds_since(start) * 1e3);
  start = Clock::now();
  const std::string body = image.encode_body();
  report("snapshot_encode_s", seconds_since(start));
  report("snapshot_bytes_per_url", static_cast<double>(body.size()) / urls);
  pop_complete(frontier, urls / 10);
  report("peak_rss_mb", peak_rss_mb());
}

// RocksDB by itself (its default compaction and table options): the same 16-byte keys and values,
// in the same order, no WAL, the same memtable size; the floor under the disk frontier's push
// rate. Then its read floor: a seek and one URL per host, round-robin, as refills read.
void run_rocksdb(uint64_t urls, uint64_t hosts, const fs::path& dir, uint64_t memory_mb) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  rocksdb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = std::max<uint64_t>((memory_mb << 20) / 4, 64 << 10);
  options.compression = rocksdb::kLZ4Compression;
  options.bottommost_compression = rocksdb::kZSTD;
  rocksdb::DB* raw_db = nullptr;
  if (!rocksdb::DB::Open(options, (dir / "floor").string(), &raw_db).ok()) {
    std::printf("error: cannot open RocksDB in %s\n", dir.c_str());
    return;
  }
  const std::unique_ptr<rocksdb::DB> db(raw_db);
  rocksdb::WriteOptions write;
  write.disableWAL = true;
  Workload workload{hosts, /*with_parent=*/true};
  char key[16];
  const Clock::time_point start = Clock::now();
  const double cpu_start = cpu_seconds();
  for (uint64_t i = 0; i < urls; ++i) {
    workload.next();
    // The host's id stands in for the frontier's dense id: the same key distribution.
    const uint64_t host_id = std::strtoull(workload.host.c_str() + 8, nullptr, 10);
    for (int b = 0; b < 4; ++b) key[b] = static_cast<char>(host_id >> (24 - 8 * b));
    for (int b = 0; b < 4; ++b) key[4 + b] = static_cast<char>(workload.depth >> (24 - 8 * b));
    for (int b = 0; b < 8; ++b) key[8 + b] = static_cast<char>(i >> (56 - 8 * b));
    const rocksdb::Status status = db->Put(write, rocksdb::Slice(key, 16), workload.url);
    if (!status.ok()) {
      std::printf("error: %s\n", status.ToString().c_str());
      return;
    }
  }
  report("push_per_s", urls / seconds_since(start));
  report("push_per_cpu_s", urls / (cpu_seconds() - cpu_start));
  db->Flush(rocksdb::FlushOptions());
  report("disk_bytes_per_url", static_cast<double>(total_bytes(files_of(dir / "floor"))) / urls);

  // The read floor under a refill: hosts round-robin, each a seek to the host's next key and the
  // read of one URL, N/10 times (the frontier's pop+complete also deletes; this only reads).
  std::vector<std::array<char, 12>> next(hosts, std::array<char, 12>{});  // per host: depth, seq
  const std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
  const Clock::time_point read_start = Clock::now();
  const double read_cpu_start = cpu_seconds();
  uint64_t bytes_read = 0;
  const uint64_t reads = urls / 10;
  for (uint64_t i = 0; i < reads; ++i) {
    const uint64_t host_id = i % hosts;
    for (int b = 0; b < 4; ++b) key[b] = static_cast<char>(host_id >> (24 - 8 * b));
    std::memcpy(key + 4, next[host_id].data(), 12);
    it->Seek(rocksdb::Slice(key, 16));
    if (!it->Valid() || std::memcmp(it->key().data(), key, 4) != 0) continue;
    bytes_read += it->value().size();
    // The next seek starts just after this key: its depth and seq + 1 (big-endian increment).
    std::memcpy(next[host_id].data(), it->key().data() + 4, 12);
    for (int b = 11; b >= 4; --b) {
      if (++next[host_id][b] != 0) break;
    }
  }
  report("seek_read_per_s", reads / seconds_since(read_start));
  report("seek_read_per_cpu_s", reads / (cpu_seconds() - read_cpu_start));
  report("bytes_read_per_seek", static_cast<double>(bytes_read) / reads);
  report("peak_rss_mb", peak_rss_mb());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: frontier_disk_bench disk|ram|rocksdb URLS HOSTS [DIR] [MEMORY_MB]\n");
    return 2;
  }
  const std::string mode = argv[1];
  const uint64_t urls = std::strtoull(argv[2], nullptr, 10);
  const uint64_t hosts = std::strtoull(argv[3], nullptr, 10);
  const fs::path dir = argc > 4 ? argv[4] : "/tmp/frontier-disk-bench";
  const uint64_t memory_mb = argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 256;
  if (mode == "disk") {
    run_disk(urls, hosts, dir, memory_mb);
  } else if (mode == "ram") {
    run_ram(urls, hosts);
  } else if (mode == "rocksdb") {
    run_rocksdb(urls, hosts, dir, memory_mb);
  } else {
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 2;
  }
  return 0;
}
