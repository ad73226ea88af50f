// Insert CPU of the compact SeenFilter against the layered one, measured in lockstep: both grow from
// START to END keys at 1e-6 in the same process, in alternating chunks of kChunk keys, so a noisy
// neighbour slows both alike (on our 2-core VM the layered filter's CPU per insert moved 1.6x
// between consecutive runs of compact_growth_bench, which measures the two one after the other).
//
//   compact_insert_lockstep_bench START END DIR     e.g. compact_insert_lockstep_bench 10000 10000000 /tmp/x
//
// The layered filter's cost is its inserting thread's CPU time over its chunks; the compact
// filter's is its inserting thread's over its chunks plus the CPU time of every job thread (runs
// and merges, I/O calls included: CompactLayers::Job::cpu_seconds), all jobs finished. Keys as in
// compact_growth_bench (8-byte integers, batches of 32, one writer), so the two benches agree on
// the work. Prints one markdown row: ns per insert of each and their ratio, and how the compact
// filter's splits between its inserting thread and its jobs. Then lookups of the two grown
// filters, alternated the same way: kLookupRounds rounds of kLookups hits spread over all END keys
// (a KeyWalk spread over them, as compact_growth_bench's) and as many misses, each filter's thread CPU per
// lookup, medians and their ratio (issue 30's lookup target); a key recorded as new and then not
// found fails it.
#include <ctime>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <vector>

#include "bench/integer_key_batch.h"
#include "seenfilter/checkpoint_format.h"
#include "seenfilter/compact_layers.h"
#include "seenfilter/seen_filter.h"

namespace {

using namespace bloomcrawl;

constexpr uint64_t kChunk = 4096;         // keys per turn: two clock reads per turn cost < 0.1 ns per key
constexpr uint64_t kLookups = 1'000'000;  // per round and kind
constexpr int kLookupRounds = 7;

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Inserts keys [first, last) into `filter`, marking in `recorded` the keys it took as new (a key
// answered kSeen by a false positive is not recorded, and a compact filter may not find it once
// the Bloom layer that answered is compacted), and returns the calling thread's CPU seconds.
double insert_range(SeenFilter& filter, uint64_t first, uint64_t last, std::vector<bool>& recorded) {
  bench::IntegerKeyBatch batch;
  std::array<InsertOutcome, bench::kBatch> outcomes{};
  const double cpu = thread_cpu_seconds();
  for (uint64_t at = first; at < last; at += bench::kBatch) {
    const auto keys = batch.fill(at, static_cast<size_t>(std::min<uint64_t>(bench::kBatch, last - at)));
    filter.insert_batch(keys, std::span(outcomes.data(), keys.size()), SeenFilter::Writers::kOne);
    for (size_t i = 0; i < keys.size(); ++i) recorded[at + i] = outcomes[i] == InsertOutcome::kNew;
  }
  return thread_cpu_seconds() - cpu;
}

// Looks up the walk's keys [first, first + count) (hits spread over all END keys, or misses from
// END on), calling check(key, found) for each after the clock stops. Returns the thread CPU
// seconds.
template <typename Check>
double lookup_range(const SeenFilter& filter, const bench::KeyWalk& walk, uint64_t first, uint64_t count,
                    Check&& check) {
  bench::IntegerKeyBatch batch;
  // One answer per key, written by contains_batch itself; the keys are recomputed for the checks.
  const auto found = std::make_unique<bool[]>(count);
  const double cpu = thread_cpu_seconds();
  for (uint64_t at = first; at < first + count; at += bench::kBatch) {
    const auto n = static_cast<size_t>(std::min<uint64_t>(bench::kBatch, first + count - at));
    filter.contains_batch(batch.fill(walk, at, n), std::span(found.get() + (at - first), n));
  }
  const double seconds = thread_cpu_seconds() - cpu;
  for (uint64_t at = first; at < first + count; ++at) check(walk.key(at), found[at - first]);
  return seconds;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: compact_insert_lockstep_bench START END DIR\n");
    return 2;
  }
  const uint64_t start = std::strtoull(argv[1], nullptr, 10);
  const uint64_t end = std::strtoull(argv[2], nullptr, 10);
  const std::filesystem::path dir = argv[3];
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  SeenFilterOptions options{.initial_capacity = start, .target_fpr = 1e-6, .memory_limit_bytes = uint64_t{64} << 30};
  SeenFilter layered(options);
  options.hash_log = dir / seenfilter::kHashLogFileName;
  SeenFilter compact(options);
  std::array<std::vector<bool>, 2> recorded{std::vector<bool>(end), std::vector<bool>(end)};  // layered, compact
  double layered_cpu = 0;
  double compact_thread_cpu = 0;
  for (uint64_t at = 0; at < end; at += kChunk) {
    const uint64_t last = std::min(end, at + kChunk);
    // Alternating which goes first, so neither always follows the other's cache footprint.
    if ((at / kChunk) % 2 == 0) {
      layered_cpu += insert_range(layered, at, last, recorded[0]);
      compact_thread_cpu += insert_range(compact, at, last, recorded[1]);
    } else {
      compact_thread_cpu += insert_range(compact, at, last, recorded[1]);
      layered_cpu += insert_range(layered, at, last, recorded[0]);
    }
  }
  compact.compact_layers()->wait_for_rebuild();
  double jobs_cpu = 0;
  for (const seenfilter::CompactLayers::Job& job : compact.compact_layers()->jobs()) jobs_cpu += job.cpu_seconds;
  const auto per_key = [end](double seconds) { return seconds * 1e9 / static_cast<double>(end); };
  const auto per_lookup = [](double seconds, uint64_t n) { return seconds * 1e9 / static_cast<double>(n); };
  const double compact_ns = per_key(compact_thread_cpu + jobs_cpu);
  std::printf(
      "| %llu -> %llu | layered %.1f ns | compact %.1f ns (inserting thread %.1f, jobs %.1f) | %.2fx | %.2f / %.2f "
      "bits/key |\n",
      static_cast<unsigned long long>(start), static_cast<unsigned long long>(end), per_key(layered_cpu), compact_ns,
      per_key(compact_thread_cpu), per_key(jobs_cpu), compact_ns / per_key(layered_cpu),
      layered.stats(false).bits_per_key, compact.stats(false).bits_per_key);

  // Lookups, alternated round by round; each round its own hits (the next stretch of the spread
  // walk) and misses (keys past END).
  std::array<std::vector<double>, 2> hit_ns;
  std::array<std::vector<double>, 2> miss_ns;
  const std::array<const SeenFilter*, 2> filters = {&layered, &compact};
  const uint64_t hits = std::min(end, kLookups);
  const bench::KeyWalk present = bench::KeyWalk::spread_over(end);
  const bench::KeyWalk absent = bench::KeyWalk::from(end);
  uint64_t false_negatives = 0;
  for (int round = 0; round < kLookupRounds; ++round) {
    for (int turn = 0; turn < 2; ++turn) {
      const int f = round % 2 == 0 ? turn : 1 - turn;
      const auto check_hit = [&](uint64_t key, bool found) { false_negatives += recorded[f][key] && !found ? 1 : 0; };
      hit_ns[f].push_back(per_lookup(lookup_range(*filters[f], present, hits * round % end, hits, check_hit), hits));
      const auto ignore = [](uint64_t, bool) {};  // false positives: compact_growth_bench counts them
      miss_ns[f].push_back(per_lookup(lookup_range(*filters[f], absent, kLookups * round, kLookups, ignore), kLookups));
    }
  }
  std::printf(
      "| lookups, medians of %d rounds | hits layered %.1f ns, compact %.1f (%.2fx) | misses layered %.1f ns, "
      "compact %.1f (%.2fx) |\n",
      kLookupRounds, median(hit_ns[0]), median(hit_ns[1]), median(hit_ns[1]) / median(hit_ns[0]), median(miss_ns[0]),
      median(miss_ns[1]), median(miss_ns[1]) / median(miss_ns[0]));
  std::filesystem::remove_all(dir);
  if (false_negatives != 0) {
    std::fprintf(stderr, "%llu recorded keys not found\n", static_cast<unsigned long long>(false_negatives));
    return 1;
  }
  return 0;
}
