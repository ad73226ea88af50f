// SeenFilter against libbloom (same target FPR) and an exact 64-bit hash set (the memory
// baseline), side by side in one run on the same URL-shaped keys (bench/seenfilter_url_keys.h):
// insert and lookup ns/key at 1M, 10M and 100M keys, one and two threads, single calls and
// batches of 64 (insert_batch / contains_batch); bits/key; measured FPR with a 95% interval.
//
// Keys are generated on the fly from an index into a reused chunk of 8192 keys; only the calls
// on a filled chunk are timed, so key generation is excluded (its cost is reported as keygen_ns).
// Single and batch calls alternate chunk by chunk within one build, so both see the same fill
// levels and page faults. Each configuration is one Google Benchmark with counters; the manual
// time is the sum of the timed calls. bench/run_seenfilter_bench.sh runs everything and renders
// bench/results/seenfilter.md.
//
//   seenfilter_bench [--benchmark_filter=...] [google benchmark flags]
//   seenfilter_bench --emit_urls=N   write N URL lines (about half repeats) to stdout, for dedup
#include <benchmark/benchmark.h>

#include <array>
#include <ctime>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "bench/seenfilter_baselines.h"
#include "bench/seenfilter_url_keys.h"
#include "seenfilter/seen_filter.h"

namespace {

using bloomcrawl::InsertOutcome;
using bloomcrawl::SeenFilter;
using bloomcrawl::SeenFilterOptions;
using bloomcrawl::bench::ExactHashSet;
using bloomcrawl::bench::LibBloom;
using bloomcrawl::bench::UrlKeyChunk;
using Keys = std::span<const std::string_view>;

constexpr size_t kChunkKeys = 8192;
constexpr size_t kBatchKeys = 64;
constexpr uint32_t kPresent = 0;  // key family inserted
constexpr uint32_t kAbsent = 1;   // key family never inserted: every positive is a false positive
constexpr uint64_t kLookupSample = 4'000'000;

enum Call { kSingle = 0, kBatch = 1 };

// ---- the structures under test, behind one interface: insert/lookup a chunk, count positives ----

// Calls batch_call on consecutive slices of up to kBatchKeys keys; sums what it returns.
template <class BatchCall>
uint64_t for_each_batch(Keys keys, BatchCall batch_call) {
  uint64_t total = 0;
  for (size_t i = 0; i < keys.size(); i += kBatchKeys) {
    total += static_cast<uint64_t>(batch_call(keys.subspan(i, std::min(kBatchKeys, keys.size() - i))));
  }
  return total;
}

struct SeenTarget {
  static constexpr bool kHasBatch = true;
  static constexpr bool kConcurrentInsert = true;
  explicit SeenTarget(const SeenFilterOptions& options) : filter(options) {}

  uint64_t insert(Keys keys, Call call) {
    uint64_t fresh = 0;
    if (call == kSingle) {
      for (std::string_view k : keys) fresh += filter.insert(k) ? 1 : 0;
      return fresh;
    }
    return for_each_batch(keys, [this](Keys batch) {
      std::array<InsertOutcome, kBatchKeys> outcomes;
      filter.insert_batch(batch, outcomes);
      return std::count(outcomes.begin(), outcomes.begin() + batch.size(), InsertOutcome::kNew);
    });
  }
  uint64_t lookup(Keys keys, Call call) const {
    uint64_t found = 0;
    if (call == kSingle) {
      for (std::string_view k : keys) found += filter.contains(k) ? 1 : 0;
      return found;
    }
    return for_each_batch(keys, [this](Keys batch) {
      std::array<bool, kBatchKeys> hits;
      filter.contains_batch(batch, hits);
      return std::count(hits.begin(), hits.begin() + batch.size(), true);
    });
  }
  uint64_t bytes() const { return filter.stats(false).bytes; }
  uint64_t layers() const { return filter.stats(false).layers.size(); }

  SeenFilter filter;
};

// libbloom and the exact set: single calls only, inserts from one thread only.
template <class Set>
struct BaselineTarget {
  static constexpr bool kHasBatch = false;
  static constexpr bool kConcurrentInsert = false;
  template <class... Args>
  explicit BaselineTarget(Args... args) : set(args...) {}

  uint64_t insert(Keys keys, Call) {
    uint64_t fresh = 0;
    for (std::string_view k : keys) fresh += set.insert(k) ? 1 : 0;
    return fresh;
  }
  uint64_t lookup(Keys keys, Call) const {
    uint64_t found = 0;
    for (std::string_view k : keys) found += set.contains(k) ? 1 : 0;
    return found;
  }
  uint64_t bytes() const { return set.bytes(); }
  uint64_t layers() const { return 1; }

  Set set;
};

// ---- timed passes over generated keys ----

struct Pass {
  uint64_t count;  // keys visited: indices first, first + stride, ...
  uint64_t stride = 1;
  uint64_t first = 0;
  uint32_t family = kPresent;
  unsigned threads = 1;
  bool alternate = false;  // odd chunks use batch calls
};

struct PassResult {
  double ns_per_key[2] = {NAN, NAN};  // by Call; with 2 threads: wall-equivalent (1 / summed rate)
  double seconds = 0;                 // timed calls, summed over threads
  double keygen_ns_per_key = 0;
  uint64_t positives = 0;
};

struct ThreadTotals {
  double seconds[2] = {0, 0};
  uint64_t keys[2] = {0, 0};
  double keygen_seconds = 0;
  uint64_t positives = 0;
};

// Thread CPU time, not wall time: the machine is shared, and time the scheduler gives to other
// processes must not count against whichever structure happened to run then. Cache-miss stalls
// and page faults of the thread itself are counted.
double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

template <class Op>
ThreadTotals run_slice(const Pass& pass, uint64_t begin, uint64_t end, Op& op) {
  ThreadTotals totals;
  UrlKeyChunk chunk;
  for (uint64_t j = begin, c = 0; j < end; j += kChunkKeys, ++c) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunkKeys, end - j));
    const double t0 = thread_seconds();
    chunk.fill(pass.first + j * pass.stride, pass.stride, n, pass.family);
    const Call call = pass.alternate && (c & 1) ? kBatch : kSingle;
    const double t1 = thread_seconds();
    totals.positives += op(Keys(chunk.keys()), call);
    const double t2 = thread_seconds();
    totals.keygen_seconds += t1 - t0;
    totals.seconds[call] += t2 - t1;
    totals.keys[call] += n;
  }
  return totals;
}

template <class Op>
PassResult run_pass(const Pass& pass, Op op) {
  std::vector<ThreadTotals> totals(pass.threads);
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < pass.threads; ++t) {
    const uint64_t begin = pass.count * t / pass.threads;
    const uint64_t end = pass.count * (t + 1) / pass.threads;
    workers.emplace_back([&, t, begin, end] { totals[t] = run_slice(pass, begin, end, op); });
  }
  for (auto& w : workers) w.join();
  PassResult result;
  double keygen_seconds = 0;
  for (int call = 0; call < 2; ++call) {
    double keys_per_second = 0;
    for (const ThreadTotals& t : totals) {
      if (t.keys[call] > 0) keys_per_second += static_cast<double>(t.keys[call]) / t.seconds[call];
    }
    if (keys_per_second > 0) result.ns_per_key[call] = 1e9 / keys_per_second;
  }
  for (const ThreadTotals& t : totals) {
    result.seconds += t.seconds[0] + t.seconds[1];
    keygen_seconds += t.keygen_seconds;
    result.positives += t.positives;
  }
  result.keygen_ns_per_key = keygen_seconds * 1e9 / static_cast<double>(pass.count);
  return result;
}

// Wilson score interval (95%) of a proportion.
std::pair<double, double> wilson95(uint64_t hits, uint64_t trials) {
  const double z = 1.959964;
  const auto n = static_cast<double>(trials);
  const double p = static_cast<double>(hits) / n;
  const double centre = (p + z * z / (2 * n)) / (1 + z * z / n);
  const double half = z * std::sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n);
  return {std::max(0.0, centre - half), centre + half};
}

// Negative probes for the FPR: enough for ~100 expected false positives at the target, at
// least 10M, at most 100M (at 1e-6: 1e8 probes, ~100 expected, interval about +-20%).
uint64_t negative_probes(double target_fpr) {
  const double wanted = std::ceil(100.0 / target_fpr);
  return static_cast<uint64_t>(std::clamp(wanted, 1e7, 1e8));
}

void set_ns(benchmark::State& state, const std::string& name, const PassResult& r) {
  state.counters[name + "_ns"] = r.ns_per_key[kSingle];
  if (!std::isnan(r.ns_per_key[kBatch])) state.counters[name + "_batch_ns"] = r.ns_per_key[kBatch];
}

// One configuration: build (1 thread), lookups of present keys (1 and 2 threads), lookups of
// absent keys (1 thread timed, then the rest of the FPR probes on 2 threads), and for SeenFilter
// a second build on 2 threads.
template <class Target>
void measure(benchmark::State& state, const std::function<std::unique_ptr<Target>()>& make, uint64_t keys,
             double target_fpr) {
  const bool alternate = Target::kHasBatch;
  auto insert = [](Target& t) { return [&t](Keys k, Call c) { return t.insert(k, c); }; };
  auto lookup = [](Target& t) { return [&t](Keys k, Call c) { return t.lookup(k, c); }; };
  for (auto _ : state) {
    double timed = 0;
    std::unique_ptr<Target> target = make();
    const PassResult built = run_pass({.count = keys, .alternate = alternate}, insert(*target));
    timed += built.seconds;
    set_ns(state, "insert", built);
    state.counters["keygen_ns"] = built.keygen_ns_per_key;
    // The one XXH3-128 pass over each key that every SeenFilter call makes (key_hash.h), timed
    // alone in this run: the floor under any per-key figure above it.
    const PassResult hashed = run_pass({.count = std::min(keys, kLookupSample)}, [](Keys k, Call) {
      uint64_t mixed = 0;
      for (std::string_view key : k) mixed ^= bloomcrawl::hash_key(key).low;
      benchmark::DoNotOptimize(mixed);
      return uint64_t{0};
    });
    state.counters["hash_ns"] = hashed.ns_per_key[kSingle];
    // New keys wrongly reported as seen while building: the false positives a crawl would suffer.
    state.counters["insert_false_seen"] = static_cast<double>(keys - built.positives);
    state.counters["bits_per_key"] = static_cast<double>(target->bytes()) * 8.0 / static_cast<double>(keys);
    state.counters["bytes"] = static_cast<double>(target->bytes());
    state.counters["layers"] = static_cast<double>(target->layers());

    const uint64_t sample = std::min(keys, kLookupSample);
    for (unsigned threads : {1u, 2u}) {
      const PassResult hit = run_pass(
          {.count = sample, .stride = keys / sample, .threads = threads, .alternate = alternate}, lookup(*target));
      timed += hit.seconds;
      set_ns(state, threads == 1 ? "hit" : "hit_2t", hit);
      if (hit.positives != sample) {
        state.SkipWithError("false negative: a present key was not found");
        return;
      }
    }

    const uint64_t probes = negative_probes(target_fpr);
    const PassResult miss = run_pass({.count = sample, .family = kAbsent, .alternate = alternate}, lookup(*target));
    const PassResult miss2 =
        run_pass({.count = probes - sample, .first = sample, .family = kAbsent, .threads = 2, .alternate = alternate},
                 lookup(*target));
    timed += miss.seconds;
    set_ns(state, "miss", miss);
    set_ns(state, "miss_2t", miss2);
    const uint64_t false_positives = miss.positives + miss2.positives;
    const auto [low, high] = wilson95(false_positives, probes);
    state.counters["fpr"] = static_cast<double>(false_positives) / static_cast<double>(probes);
    state.counters["fpr_low"] = low;
    state.counters["fpr_high"] = high;
    state.counters["false_positives"] = static_cast<double>(false_positives);
    state.counters["negative_probes"] = static_cast<double>(probes);
    target.reset();

    if constexpr (Target::kConcurrentInsert) {
      target = make();
      const PassResult built2 = run_pass({.count = keys, .threads = 2, .alternate = alternate}, insert(*target));
      timed += built2.seconds;
      set_ns(state, "insert_2t", built2);
    }
    state.SetIterationTime(timed);
  }
}

constexpr uint64_t kGrownInitialCapacity = 1'000'000;

SeenFilterOptions seen_options(uint64_t initial_capacity, double fpr, double tightening_ratio) {
  SeenFilterOptions o;
  o.initial_capacity = initial_capacity;
  o.target_fpr = fpr;
  o.growth_factor = 2.0;
  o.tightening_ratio = tightening_ratio;
  o.memory_limit_bytes = uint64_t{16} << 30;
  return o;
}

std::string name(const std::string& structure, double fpr, uint64_t keys) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%s/fpr:%g/keys:%llu", structure.c_str(), fpr, static_cast<unsigned long long>(keys));
  return buf;
}

// Every configuration runs once: one iteration is a full build at that size.
void once(benchmark::internal::Benchmark* b) { b->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond); }

void add_seen(const std::string& structure, uint64_t keys, double fpr, const SeenFilterOptions& options) {
  once(benchmark::RegisterBenchmark(name(structure, fpr, keys).c_str(), [=](benchmark::State& state) {
    measure<SeenTarget>(
        state, [options] { return std::make_unique<SeenTarget>(options); }, keys, fpr);
  }));
}

void register_all() {
  using LibBloomTarget = BaselineTarget<LibBloom>;
  using ExactTarget = BaselineTarget<ExactHashSet>;
  for (uint64_t keys : {1'000'000ULL, 10'000'000ULL, 100'000'000ULL}) {
    for (double fpr : {1e-2, 1e-6}) {
      if (auto why = LibBloom::unsupported(keys, fpr)) {
        const std::string reason = *why;
        once(benchmark::RegisterBenchmark(name("libbloom", fpr, keys).c_str(), [reason](benchmark::State& state) {
          for (auto _ : state) state.SkipWithError(reason.c_str());
        }));
      } else {
        once(benchmark::RegisterBenchmark(name("libbloom", fpr, keys).c_str(), [=](benchmark::State& state) {
          measure<LibBloomTarget>(
              state, [=] { return std::make_unique<LibBloomTarget>(keys, fpr); }, keys, fpr);
        }));
      }
      // Right-sized with the library's default tightening ratio (0.9): layer 0 gets 10% of the budget.
      add_seen("seen_right", keys, fpr, seen_options(keys, fpr, 0.9));
      // Right-sized and declared one-layer (tightening ratio 0): the whole budget to layer 0.
      if (fpr == 1e-2) add_seen("seen_one_layer", keys, fpr, seen_options(keys, fpr, 0.0));
      // Grown through its layers with the crawler's config defaults: 1M first layer, growth 2, r 0.8.
      add_seen("seen_grown", keys, fpr, seen_options(kGrownInitialCapacity, fpr, 0.8));
    }
    // The exact set has no target FPR; 1e-2 only sizes its negative probes (the minimum, 10M).
    once(benchmark::RegisterBenchmark(name("exact_set", 0, keys).c_str(), [=](benchmark::State& state) {
      measure<ExactTarget>(
          state, [=] { return std::make_unique<ExactTarget>(keys); }, keys, 1e-2);
    }));
  }
}

// The dedup workload: line j is a new URL or, with probability 1/2, a repeat of an earlier one.
int emit_urls(uint64_t lines) {
  std::vector<char> out;
  out.reserve(size_t{1} << 22);
  char key[bloomcrawl::bench::kMaxUrlKeyBytes + 1];
  uint64_t fresh = 0;
  for (uint64_t j = 0; j < lines; ++j) {
    const uint64_t r = bloomcrawl::bench::splitmix64(j ^ 0x5eedULL);
    const uint64_t id = (r & 1) == 0 || fresh == 0 ? fresh++ : (r >> 1) % fresh;
    const size_t n = bloomcrawl::bench::UrlKeyWriter::write(id, kPresent, key);
    key[n] = '\n';
    out.insert(out.end(), key, key + n + 1);
    if (out.size() >= (size_t{1} << 22) || j + 1 == lines) {
      if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size()) return 1;
      out.clear();
    }
  }
  std::fprintf(stderr, "emitted %llu lines, %llu distinct\n", static_cast<unsigned long long>(lines),
               static_cast<unsigned long long>(fresh));
  return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  constexpr std::string_view kEmit = "--emit_urls=";
  if (argc == 2 && std::string_view(argv[1]).starts_with(kEmit)) {
    return emit_urls(std::strtoull(argv[1] + kEmit.size(), nullptr, 10));
  }
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
