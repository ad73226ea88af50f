// The compact seen filter's parts against today's layered SeenFilter, on the same keys at a target
// of 1e-6 (issue 30): bits per key, batch insert/lookup ns per key, build time and scratch memory
// of the partitioned binary fuse filter, and measured FPR over absent keys.
//
//   compact_filter_bench KEYS [PROBES]    e.g. compact_filter_bench 10000000 100000000
//
// Prints markdown table rows (bench/run_compact_filter_bench.sh writes them with the machine).
// The layered filter grows from KEYS/1000 (the 1000x growth); the fuse filter holds all
// KEYS at the fingerprint size split_fpr_budget() picks. Keys are 8-byte little-endian integers
// (hashed with XXH3-128 as every SeenFilter key is); key i < KEYS is present, i >= KEYS absent.
// Times are thread CPU time (CLOCK_THREAD_CPUTIME_ID), as in seenfilter_bench.
#include <ctime>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "bench/integer_key_batch.h"
#include "seenfilter/blocked_bloom_math.h"
#include "seenfilter/compact_math.h"
#include "seenfilter/fuse_filter.h"
#include "seenfilter/hash_log.h"
#include "seenfilter/seen_filter.h"

namespace {

using namespace bloomcrawl;

constexpr double kTarget = 1e-6;
constexpr double kActiveRatio = 0.125;
using bench::kBatch;

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// CPU ns per key over the walk's first `count` keys, kBatch at a time.
template <typename PerBatch>
double ns_per_key(const bench::KeyWalk& walk, uint64_t count, PerBatch&& per_batch) {
  bench::IntegerKeyBatch batch;
  const double start = cpu_seconds();
  for (uint64_t at = 0; at < count; at += kBatch) {
    per_batch(batch.fill(walk, at, static_cast<size_t>(std::min<uint64_t>(kBatch, count - at))));
  }
  return (cpu_seconds() - start) * 1e9 / static_cast<double>(count);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: compact_filter_bench KEYS [PROBES]\n");
    return 2;
  }
  const uint64_t keys = std::strtoull(argv[1], nullptr, 10);
  const uint64_t probes = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : keys * 10;
  const seenfilter::FprBudget budget = seenfilter::split_fpr_budget(kTarget, kActiveRatio);

  // Today's layered filter, grown 1000x.
  SeenFilterOptions options;
  options.initial_capacity = std::max<uint64_t>(keys / 1000, 1);
  options.target_fpr = kTarget;
  options.memory_limit_bytes = uint64_t{64} << 30;
  SeenFilter layered(options);
  std::array<InsertOutcome, kBatch> outcomes{};
  const double layered_insert = ns_per_key(bench::KeyWalk::from(0), keys, [&](std::span<const std::string_view> batch) {
    layered.insert_batch(batch, std::span(outcomes.data(), batch.size()), SeenFilter::Writers::kOne);
  });
  const SeenFilterStats layered_stats = layered.stats(false);

  // The hashes the log would hold, partitioned as a rebuild reads them, then the fuse build.
  seenfilter::FuseFilterBuilder builder(keys, budget.fingerprint_bits);
  std::vector<std::vector<uint64_t>> parts(builder.partitions());
  const double hash_ns = ns_per_key(bench::KeyWalk::from(0), keys, [&](std::span<const std::string_view> batch) {
    for (std::string_view key : batch) {
      const uint64_t h = seenfilter::log_hash(hash_key(key));
      parts[builder.partition_of(h)].push_back(h);
    }
  });
  const double build_start = cpu_seconds();
  for (uint32_t i = 0; i < builder.partitions(); ++i) {
    builder.add_partition(i, parts[i]);
    std::vector<uint64_t>().swap(parts[i]);
  }
  const seenfilter::FuseFilter fuse = builder.finish();
  const double build_ns = (cpu_seconds() - build_start) * 1e9 / static_cast<double>(keys);
  const std::string encoded = fuse.encode();

  // Batch lookups: present keys (every one must be found), then absent ones (the FPR probes).
  std::array<bool, kBatch> found{};
  uint64_t layered_missing = 0;
  // Hits spread over all keys: the first ones inserted sit in the layered filter's oldest layers,
  // which it tests last.
  const bench::KeyWalk present = bench::KeyWalk::spread_over(keys);
  const double layered_hit =
      ns_per_key(present, std::min<uint64_t>(keys, 4000000), [&](std::span<const std::string_view> b) {
        layered.contains_batch(b, std::span(found.data(), b.size()));
        for (size_t i = 0; i < b.size(); ++i) layered_missing += found[i] ? 0 : 1;
      });
  uint64_t fuse_missing = 0;
  auto fuse_batch = [&](std::span<const std::string_view> b, uint64_t& counter, bool count_found) {
    std::array<uint64_t, kBatch> h{};
    for (size_t i = 0; i < b.size(); ++i) {
      h[i] = seenfilter::log_hash(hash_key(b[i]));
      fuse.prefetch(h[i]);
    }
    for (size_t i = 0; i < b.size(); ++i) counter += fuse.contains(h[i]) == count_found ? 1 : 0;
  };
  const double fuse_hit = ns_per_key(present, std::min<uint64_t>(keys, 4000000),
                                     [&](std::span<const std::string_view> b) { fuse_batch(b, fuse_missing, false); });
  uint64_t layered_fp = 0;
  const double layered_miss = ns_per_key(bench::KeyWalk::from(keys), probes, [&](std::span<const std::string_view> b) {
    layered.contains_batch(b, std::span(found.data(), b.size()));
    for (size_t i = 0; i < b.size(); ++i) layered_fp += found[i] ? 1 : 0;
  });
  uint64_t fuse_fp = 0;
  const double fuse_miss = ns_per_key(bench::KeyWalk::from(keys), probes,
                                      [&](std::span<const std::string_view> b) { fuse_batch(b, fuse_fp, true); });

  const double bloom_bits = seenfilter::size_layer(0, uint64_t{1} << 20, budget.bloom_layer_fpr).bits_per_key();
  const double after_rebuild = fuse.bits_per_key() + kActiveRatio * bloom_bits;
  const double peak = seenfilter::peak_bits_per_key(fuse.bits_per_key(), bloom_bits, kActiveRatio);
  std::printf(
      "| %llu | layered SeenFilter (grown 1000x, r 0.9) | %.2f | %zu layers | %.1f | %.1f / %.1f | - | - | %llu / %llu "
      "= %.3g | %llu |\n",
      static_cast<unsigned long long>(keys), layered_stats.bits_per_key, layered_stats.layers.size(), layered_insert,
      layered_hit, layered_miss, static_cast<unsigned long long>(layered_fp), static_cast<unsigned long long>(probes),
      static_cast<double>(layered_fp) / static_cast<double>(probes), static_cast<unsigned long long>(layered_missing));
  std::printf(
      "| %llu | binary fuse, f = %u, 2^%u partitions (static, all keys) | %.2f | active+compact %.2f-%.2f | "
      "hash+partition %.1f, build %.1f | %.1f / %.1f | %.0f%% | %zu | %llu / %llu = %.3g | %llu |\n",
      static_cast<unsigned long long>(keys), fuse.fingerprint_bits(), fuse.partition_bits(), fuse.bits_per_key(),
      after_rebuild / (1 + kActiveRatio), peak, hash_ns, build_ns, fuse_hit, fuse_miss,
      100.0 * static_cast<double>(builder.peak_scratch_bytes()) / static_cast<double>(fuse.bytes()), encoded.size(),
      static_cast<unsigned long long>(fuse_fp), static_cast<unsigned long long>(probes),
      static_cast<double>(fuse_fp) / static_cast<double>(probes), static_cast<unsigned long long>(fuse_missing));
  return layered_missing + fuse_missing == 0 ? 0 : 1;
}
