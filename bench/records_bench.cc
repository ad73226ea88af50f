// The URL records at scale (issue 27, "Records at scale"): N records of the frontier bench's shape
// (bench/frontier_workload.h) over H hosts, as written at admission (URL, depth, parent hash,
// first admitted time), one mode per process so that peak RSS is that mode's:
//   records_bench records N H DIR [memory_mb]  RecordStore: put all, persist, then lookups
//   records_bench rocksdb N H DIR [memory_mb]  RocksDB alone (its default options, no WAL): the
//                                              same keys and values in batches of the same size,
//                                              then MultiGet of the same lookups (the floor)
// Lookups, after the fill: a sample of 200,000 present URLs in random order, in batches of 35
// (get_many); the same URLs with a changed path (absent, same hosts); and, records mode only, the
// exact-mode check: pages of 35 links of one host (a page's links mostly stay on its site), all
// present (what the seen filter answered "maybe seen" for), pages in random host order.
// Prints "name value" lines (bench/run_records_bench.sh tabulates them).
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bench/frontier_workload.h"
#include "bench/process_measures.h"
#include "records/record_store.h"

namespace {

namespace fs = std::filesystem;
using bloomcrawl::RecordStore;
using bloomcrawl::UrlRecord;
using bloomcrawl::bench::cpu_seconds;
using bloomcrawl::bench::files_of;
using bloomcrawl::bench::peak_rss_mb;
using bloomcrawl::bench::splitmix64;
using bloomcrawl::bench::total_bytes;
using bloomcrawl::bench::Workload;
using Clock = std::chrono::steady_clock;

constexpr size_t kLinksPerPage = 35;
constexpr size_t kSampleUrls = 200000;
constexpr size_t kBatch = RecordStore::kBatchedPuts;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

void report(const char* name, double value) { std::printf("%s %.3f\n", name, value); }

// Record i of the sequence, as the crawl writes it at admission; `workload` has just made URL i.
UrlRecord admitted_record(const Workload& workload, uint64_t i, uint64_t& parent_seed) {
  UrlRecord r;
  r.url = workload.url;
  r.depth = workload.depth;
  r.parent_hash = splitmix64(parent_seed);
  r.first_admitted_ms = 1764930000000 + static_cast<int64_t>(i / 100);  // 100,000 admissions a second
  return r;
}

// Every `step`-th URL of the sequence, shuffled: the present lookups (the same in both modes).
std::vector<std::string> present_sample(uint64_t urls, uint64_t hosts) {
  const uint64_t step = std::max<uint64_t>(1, urls / kSampleUrls);
  Workload workload{hosts};
  std::vector<std::string> sample;
  for (uint64_t i = 0; i < urls; ++i) {
    workload.next();
    if (i % step == 0) sample.push_back(workload.url);
  }
  std::shuffle(sample.begin(), sample.end(), std::mt19937_64(7));
  return sample;
}

std::vector<std::string> absent_of(const std::vector<std::string>& present) {
  std::vector<std::string> absent;
  absent.reserve(present.size());
  for (const std::string& url : present) absent.push_back(url + "-absent");
  return absent;
}

// Looks `urls` up in batches of kLinksPerPage with `lookup` (returns how many were found) and
// reports NAME_per_s, NAME_per_cpu_s and NAME_found_fraction.
template <typename Lookup>
void measure_lookups(const char* name, const std::vector<std::string>& urls, Lookup lookup) {
  std::vector<std::string_view> batch;
  uint64_t found = 0;
  const Clock::time_point start = Clock::now();
  const double cpu_start = cpu_seconds();
  for (size_t i = 0; i < urls.size(); i += kLinksPerPage) {
    batch.assign(urls.begin() + static_cast<std::ptrdiff_t>(i),
                 urls.begin() + static_cast<std::ptrdiff_t>(std::min(urls.size(), i + kLinksPerPage)));
    found += lookup(batch);
  }
  const double wall = seconds_since(start);
  const double cpu = cpu_seconds() - cpu_start;
  const std::string prefix(name);
  report((prefix + "_per_s").c_str(), static_cast<double>(urls.size()) / wall);
  report((prefix + "_per_cpu_s").c_str(), static_cast<double>(urls.size()) / cpu);
  report((prefix + "_found_fraction").c_str(), static_cast<double>(found) / static_cast<double>(urls.size()));
}

// Pages of kLinksPerPage links each, every page's links drawn at random from one host's records
// (a reservoir sample of the host's scan): one host in `every` of the scan's, up to `pages`
// pages, in random order. Also counts the records.
std::vector<std::string> host_pages(RecordStore& store, uint64_t every, size_t pages, uint64_t* records) {
  std::vector<std::vector<std::string>> hosts;
  std::mt19937_64 random(11);
  std::string current_host;
  uint64_t host_index = 0;
  uint64_t seen_in_host = 0;
  bool collecting = false;
  store.scan_all([&](const UrlRecord& r) {
    ++*records;
    const size_t authority_end = r.url.find('/', 8);  // after "https://"
    const std::string_view authority = std::string_view(r.url).substr(0, authority_end);
    if (authority != current_host) {
      current_host = authority;
      collecting = host_index++ % every == 0 && hosts.size() < pages;
      if (collecting) hosts.emplace_back();
      seen_in_host = 0;
    }
    if (!collecting) return true;
    std::vector<std::string>& links = hosts.back();
    if (links.size() < kLinksPerPage) {
      links.push_back(r.url);
    } else if (const uint64_t slot = random() % (seen_in_host + 1); slot < kLinksPerPage) {
      links[slot] = r.url;
    }
    ++seen_in_host;
    return true;
  });
  std::shuffle(hosts.begin(), hosts.end(), random);
  std::vector<std::string> links;
  for (std::vector<std::string>& host : hosts) {
    for (std::string& url : host) links.push_back(std::move(url));
  }
  return links;
}

void run_records(uint64_t urls, uint64_t hosts, const fs::path& dir, uint64_t memory_mb) {
  fs::remove_all(dir);
  {
    RecordStore store(dir, memory_mb << 20);
    Workload workload{hosts};
    uint64_t parent_seed = 3;
    const Clock::time_point start = Clock::now();
    const double cpu_start = cpu_seconds();
    for (uint64_t i = 0; i < urls; ++i) {
      workload.next();
      store.put(admitted_record(workload, i, parent_seed));
    }
    store.persist();
    report("write_per_s", static_cast<double>(urls) / seconds_since(start));
    report("write_per_cpu_s", static_cast<double>(urls) / (cpu_seconds() - cpu_start));
    report("rss_after_write_mb", peak_rss_mb());
    // Lookups are measured on a settled store: their CPU time would include the compactions'.
    const Clock::time_point settle_start = Clock::now();
    while (store.compacting()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    report("compaction_settle_s", seconds_since(settle_start));

    const std::vector<std::string> present = present_sample(urls, hosts);
    measure_lookups("get_many_present", present, [&](const std::vector<std::string_view>& batch) {
      uint64_t found = 0;
      for (const auto& r : store.get_many(batch)) found += r ? 1 : 0;
      return found;
    });
    measure_lookups("get_many_absent", absent_of(present), [&](const std::vector<std::string_view>& batch) {
      uint64_t found = 0;
      for (const auto& r : store.get_many(batch)) found += r ? 1 : 0;
      return found;
    });

    uint64_t records = 0;
    const Clock::time_point scan_start = Clock::now();
    const std::vector<std::string> pages = host_pages(store, std::max<uint64_t>(1, hosts / 10000), 10000, &records);
    report("scan_per_s", static_cast<double>(records) / seconds_since(scan_start));
    report("records", static_cast<double>(records));
    measure_lookups("exact_check", pages, [&](const std::vector<std::string_view>& batch) {
      uint64_t found = 0;
      for (const auto& r : store.get_many(batch)) found += r ? 1 : 0;
      return found;
    });
    report("disk_bytes_per_url", static_cast<double>(total_bytes(files_of(dir))) / static_cast<double>(urls));
    report("disk_bytes_per_record", static_cast<double>(total_bytes(files_of(dir))) / static_cast<double>(records));
    report("url_bytes_per_record", [&] {
      double bytes = 0;
      Workload w{hosts};
      for (uint64_t i = 0; i < std::min<uint64_t>(urls, 100000); ++i) {
        w.next();
        bytes += static_cast<double>(w.url.size());
      }
      return bytes / static_cast<double>(std::min<uint64_t>(urls, 100000));
    }());
    report("store_memory_mb", static_cast<double>(store.memory_bytes()) / (1 << 20));
  }
  report("peak_rss_mb", peak_rss_mb());
}

// RocksDB by itself, out of the box (default table and compaction options) but for the memtable
// size and no WAL: the same keys and values, in write batches of the same size.
void run_rocksdb(uint64_t urls, uint64_t hosts, const fs::path& dir, uint64_t memory_mb) {
  fs::remove_all(dir);
  rocksdb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = std::max<uint64_t>((memory_mb << 20) / 4, 64 << 10);
  rocksdb::DB* raw_db = nullptr;
  if (!rocksdb::DB::Open(options, dir.string(), &raw_db).ok()) {
    std::printf("error: cannot open RocksDB in %s\n", dir.c_str());
    return;
  }
  const std::unique_ptr<rocksdb::DB> db(raw_db);
  rocksdb::WriteOptions write;
  write.disableWAL = true;
  Workload workload{hosts};
  uint64_t parent_seed = 3;
  rocksdb::WriteBatch batch;
  const Clock::time_point start = Clock::now();
  const double cpu_start = cpu_seconds();
  for (uint64_t i = 0; i < urls; ++i) {
    workload.next();
    const UrlRecord r = admitted_record(workload, i, parent_seed);
    batch.Put(bloomcrawl::record_key(r.url), bloomcrawl::encode_url_record(r));
    if (batch.Count() >= static_cast<uint32_t>(kBatch) || i + 1 == urls) {
      const rocksdb::Status status = db->Write(write, &batch);
      if (!status.ok()) {
        std::printf("error: %s\n", status.ToString().c_str());
        return;
      }
      batch.Clear();
    }
  }
  db->Flush(rocksdb::FlushOptions());
  report("write_per_s", static_cast<double>(urls) / seconds_since(start));
  report("write_per_cpu_s", static_cast<double>(urls) / (cpu_seconds() - cpu_start));

  auto multi_get = [&](const std::vector<std::string_view>& urls_batch) {
    std::vector<std::string> keys;
    keys.reserve(urls_batch.size());
    for (const std::string_view url : urls_batch) keys.push_back(bloomcrawl::record_key(url));
    std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
    std::vector<rocksdb::PinnableSlice> values(keys.size());
    std::vector<rocksdb::Status> statuses(keys.size());
    db->MultiGet(rocksdb::ReadOptions(), db->DefaultColumnFamily(), slices.size(), slices.data(), values.data(),
                 statuses.data());
    uint64_t found = 0;
    for (const rocksdb::Status& status : statuses) found += status.ok() ? 1 : 0;
    return found;
  };
  const std::vector<std::string> present = present_sample(urls, hosts);
  measure_lookups("get_many_present", present, multi_get);
  measure_lookups("get_many_absent", absent_of(present), multi_get);
  report("disk_bytes_per_url", static_cast<double>(total_bytes(files_of(dir))) / static_cast<double>(urls));
  report("peak_rss_mb", peak_rss_mb());
}

}  // namespace

int main(int argc, char** argv) {
  using Run = void (*)(uint64_t records, uint64_t hosts, const fs::path& dir, uint64_t memory_mb);
  const std::map<std::string, Run> modes = {{"records", run_records}, {"rocksdb", run_rocksdb}};
  const auto mode = argc >= 5 ? modes.find(argv[1]) : modes.end();
  if (mode == modes.end()) {
    std::fprintf(stderr, "usage: records_bench records|rocksdb RECORDS HOSTS DIR [MEMORY_MB]\n");
    return 2;
  }
  mode->second(std::strtoull(argv[2], nullptr, 10), std::strtoull(argv[3], nullptr, 10), argv[4],
               argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 256);
  return 0;
}
