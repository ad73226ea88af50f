// The compact SeenFilter (SeenFilterOptions::hash_log) grown from START to END keys at 1e-6, beside
// today's layered SeenFilter grown the same way, on the same keys (issue 30's growth benchmark).
//
//   compact_growth_bench START END PROBES DIR     e.g. compact_growth_bench 10000 10000000 100000000 /tmp/x
//
// Prints markdown: one row per structure with bits per key at the end and the worst and best seen
// at any point of the growth (sampled every 4096 keys, so every seal and shard switch is caught
// within 4096 keys; the worst also once past 8x START and past min(START, kMinActiveKeys)/a, where
// active layers of a·keys take over from the floor's), batch insert ns per key as wall time and as CPU time of the
// whole process (the rebuild thread included), batch lookup ns per key (hits spread over all END keys, then PROBES
// absent keys), the measured FPR, false negatives among the keys whose insert returned kNew, rebuilds, and the peak
// bytes a rebuild held beside the filter, the jobs' wall time (merges and run builds), and a checkpoint of the grown
// filter (its bytes with the hash log, save and load seconds). A seal waits for the previous rebuild, so insert wall
// time includes what the rebuild thread could not hide. Inserts are one writer (Writers::kOne), as `bloomcrawl dedup`.
// Keys are 8-byte integers; i < END present, i >= END absent. Beside them, libbloom (a one-array standard Bloom filter,
// where its int sizes allow) and the same classic filter with 64-bit indexes (bench::StandardBloom), both sized for END
// at the same target.
#include <ctime>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bench/integer_key_batch.h"
#include "bench/seenfilter_baselines.h"
#include "seenfilter/checkpoint.h"
#include "seenfilter/checkpoint_format.h"
#include "seenfilter/compact_layers.h"
#include "seenfilter/compact_math.h"
#include "seenfilter/seen_filter.h"
#include "seenfilter/shard_key_files.h"

namespace {

using namespace bloomcrawl;

constexpr double kTarget = 1e-6;
using bench::kBatch;
constexpr uint64_t kSampleEvery = 4096;
// Hits are looked up over this many present keys spread evenly over all END (KeyWalk::spread_over). The
// first keys inserted would favour the compact filter: they sit in the layered filter's oldest
// layers, which it tests last (newest first), while the compact filter holds every key alike;
// spread evenly, half are in the layered filter's newest layer. At 10M keys the compact filter's
// hits took 0.72x the layered filter's time over the first 2M keys, 1.2-1.6x spread evenly.
constexpr uint64_t kHits = 4'000'000;

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Figures {
  double insert_wall_ns = 0, insert_cpu_ns = 0;
  double bits_end = 0, bits_worst = 0, bits_best = 1e9;
  double bits_worst_grown = 0;    // worst once the filter holds 8x START keys
  double bits_worst_settled = 0;  // worst once active layers are a·keys, not their floor (settled_from())
  double hit_ns = 0, miss_ns = 0;
  uint64_t false_positives = 0, missing = 0, layers = 0;
  uint64_t unrecorded = 0;  // inserts answered kSeen by a false positive (never recorded)
};

// Where a seal's active layer is a·keys rather than its floor, min(START, kMinActiveKeys).
uint64_t settled_from(uint64_t start) {
  return static_cast<uint64_t>(static_cast<double>(std::min(start, seenfilter::kMinActiveKeys)) /
                               seenfilter::kTieredActiveRatio);
}

// Grows `filter` over [0, end), sampling bits per key once the filter holds `start` keys.
Figures measure(SeenFilter& filter, uint64_t start, uint64_t end, uint64_t probes) {
  Figures f;
  bench::IntegerKeyBatch batch;
  std::array<InsertOutcome, kBatch> outcomes{};
  std::vector<bool> recorded(end);  // a false positive's kSeen records nothing: not a false negative later
  const double wall = wall_seconds();
  const double cpu = process_cpu_seconds();
  for (uint64_t at = 0; at < end; at += kBatch) {
    const auto keys = batch.fill(at, static_cast<size_t>(std::min<uint64_t>(kBatch, end - at)));
    filter.insert_batch(keys, std::span(outcomes.data(), keys.size()), SeenFilter::Writers::kOne);
    for (size_t i = 0; i < keys.size(); ++i) recorded[at + i] = outcomes[i] == InsertOutcome::kNew;
    if (at >= start && at % kSampleEvery == 0) {
      const SeenFilterStats s = filter.stats(false);
      f.bits_worst = std::max(f.bits_worst, s.bits_per_key);
      f.bits_best = std::min(f.bits_best, s.bits_per_key);
      if (at >= 8 * start) f.bits_worst_grown = std::max(f.bits_worst_grown, s.bits_per_key);
      if (at >= settled_from(start)) {
        f.bits_worst_settled = std::max(f.bits_worst_settled, s.bits_per_key);
      }
    }
  }
  if (auto* compact = filter.compact_layers()) compact->wait_for_rebuild();  // its cost counts
  f.insert_wall_ns = (wall_seconds() - wall) * 1e9 / static_cast<double>(end);
  f.insert_cpu_ns = (process_cpu_seconds() - cpu) * 1e9 / static_cast<double>(end);
  const SeenFilterStats s = filter.stats(false);
  f.bits_end = s.bits_per_key;
  f.layers = s.layers.size();
  f.unrecorded = end - s.keys;
  std::array<bool, kBatch> found{};
  const uint64_t hits = std::min<uint64_t>(end, kHits);
  const bench::KeyWalk present = bench::KeyWalk::spread_over(end);
  double t = process_cpu_seconds();
  for (uint64_t at = 0; at < hits; at += kBatch) {
    const auto keys = batch.fill(present, at, static_cast<size_t>(std::min<uint64_t>(kBatch, hits - at)));
    filter.contains_batch(keys, std::span(found.data(), keys.size()));
    for (size_t i = 0; i < keys.size(); ++i) f.missing += recorded[batch.storage[i]] && !found[i] ? 1 : 0;
  }
  f.hit_ns = (process_cpu_seconds() - t) * 1e9 / static_cast<double>(hits);
  t = process_cpu_seconds();
  for (uint64_t at = 0; at < probes; at += kBatch) {
    const auto keys = batch.fill(end + at, static_cast<size_t>(std::min<uint64_t>(kBatch, probes - at)));
    filter.contains_batch(keys, std::span(found.data(), keys.size()));
    for (size_t i = 0; i < keys.size(); ++i) f.false_positives += found[i] ? 1 : 0;
  }
  f.miss_ns = (process_cpu_seconds() - t) * 1e9 / static_cast<double>(probes);
  return f;
}

// A one-array Bloom filter sized for END keys at the target from the start (it cannot grow): the
// classic filter, k probes over the whole array, one call per key (libbloom has no batch API).
template <typename OneArrayBloom>
Figures measure_one_array(uint64_t end, uint64_t probes, int& k) {
  Figures f;
  OneArrayBloom bloom(end, kTarget);
  k = bloom.probes();
  bench::IntegerKeyBatch batch;
  std::vector<bool> recorded(end);
  const double wall = wall_seconds();
  const double cpu = process_cpu_seconds();
  for (uint64_t at = 0; at < end; at += kBatch) {
    const auto keys = batch.fill(at, static_cast<size_t>(std::min<uint64_t>(kBatch, end - at)));
    for (size_t i = 0; i < keys.size(); ++i) recorded[at + i] = bloom.insert(keys[i]);
  }
  f.insert_wall_ns = (wall_seconds() - wall) * 1e9 / static_cast<double>(end);
  f.insert_cpu_ns = (process_cpu_seconds() - cpu) * 1e9 / static_cast<double>(end);
  f.bits_end = f.bits_best = f.bits_worst = f.bits_worst_grown = f.bits_worst_settled =
      static_cast<double>(bloom.bytes()) * 8.0 / static_cast<double>(end);
  f.unrecorded = static_cast<uint64_t>(std::count(recorded.begin(), recorded.end(), false));
  const uint64_t hits = std::min<uint64_t>(end, kHits);
  const bench::KeyWalk present = bench::KeyWalk::spread_over(end);
  double t = process_cpu_seconds();
  for (uint64_t at = 0; at < hits; at += kBatch) {
    const auto keys = batch.fill(present, at, static_cast<size_t>(std::min<uint64_t>(kBatch, hits - at)));
    for (size_t i = 0; i < keys.size(); ++i) {
      f.missing += recorded[batch.storage[i]] && !bloom.contains(keys[i]) ? 1 : 0;
    }
  }
  f.hit_ns = (process_cpu_seconds() - t) * 1e9 / static_cast<double>(hits);
  t = process_cpu_seconds();
  for (uint64_t at = 0; at < probes; at += kBatch) {
    const auto keys = batch.fill(end + at, static_cast<size_t>(std::min<uint64_t>(kBatch, probes - at)));
    for (const auto& key : keys) f.false_positives += bloom.contains(key) ? 1 : 0;
  }
  f.miss_ns = (process_cpu_seconds() - t) * 1e9 / static_cast<double>(probes);
  return f;
}

// A checkpoint of the grown filter: its bytes on disk (the hash log included), the time to take
// it (snapshot() and save_checkpoint()) and to load it back; apart, the jobs' key files in the
// same directory (not part of the checkpoint: the merge's key cache, docs/seenfilter.md).
struct CheckpointFigures {
  uint64_t bytes = 0, log_bytes = 0, key_file_bytes = 0;
  double save_seconds = 0, load_seconds = 0;
  bool reloaded = true;  // the loaded filter holds as many keys
};

CheckpointFigures measure_checkpoint(const SeenFilter& filter, const std::filesystem::path& dir) {
  CheckpointFigures c;
  double t = wall_seconds();
  save_checkpoint(filter.snapshot(), dir);
  c.save_seconds = wall_seconds() - t;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    const std::string parent = entry.path().parent_path().filename().string();
    if (parent.ends_with(seenfilter::kMergeKeyFilesSuffix) || parent.ends_with(seenfilter::kRunKeyFilesSuffix)) {
      c.key_file_bytes += entry.file_size();
      continue;
    }
    c.bytes += entry.file_size();
    if (entry.path().filename() == seenfilter::kHashLogFileName) c.log_bytes += entry.file_size();
  }
  t = wall_seconds();
  const auto loaded = load_checkpoint(dir);
  c.load_seconds = wall_seconds() - t;
  if (loaded->size() != filter.size()) {
    std::fprintf(stderr, "checkpoint of %s reloaded with %llu keys, not %llu\n", dir.c_str(),
                 static_cast<unsigned long long>(loaded->size()), static_cast<unsigned long long>(filter.size()));
    c.reloaded = false;
  }
  return c;
}

std::string checkpoint_text(const CheckpointFigures& c) {
  char text[200];
  std::snprintf(text, sizeof text,
                "checkpoint %.1f MB (hash log %.1f MB), saved in %.2f s, loaded in %.2f s; key files beside it %.1f MB",
                static_cast<double>(c.bytes) / 1e6, static_cast<double>(c.log_bytes) / 1e6, c.save_seconds,
                c.load_seconds, static_cast<double>(c.key_file_bytes) / 1e6);
  return text;
}

void print_row(const char* name, uint64_t start, uint64_t end, uint64_t probes, const Figures& f, const char* extra) {
  std::printf(
      "| %llu -> %llu | %s | %.2f | %.2f - %.2f (%.2f past 8x, %.2f past %llu keys) | %.1f / %.1f | %.1f / %.1f | %llu "
      "/ "
      "%llu = %.3g | %llu | %s |\n",
      static_cast<unsigned long long>(start), static_cast<unsigned long long>(end), name, f.bits_end, f.bits_best,
      f.bits_worst, f.bits_worst_grown, f.bits_worst_settled, static_cast<unsigned long long>(settled_from(start)),
      f.insert_wall_ns, f.insert_cpu_ns, f.hit_ns, f.miss_ns, static_cast<unsigned long long>(f.false_positives),
      static_cast<unsigned long long>(probes), static_cast<double>(f.false_positives) / static_cast<double>(probes),
      static_cast<unsigned long long>(f.missing), extra);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: compact_growth_bench START END PROBES DIR\n");
    return 2;
  }
  const uint64_t start = std::strtoull(argv[1], nullptr, 10);
  const uint64_t end = std::strtoull(argv[2], nullptr, 10);
  const uint64_t probes = std::strtoull(argv[3], nullptr, 10);
  const std::filesystem::path dir = argv[4];
  std::filesystem::create_directories(dir);

  SeenFilterOptions options{.initial_capacity = start, .target_fpr = kTarget, .memory_limit_bytes = uint64_t{64} << 30};
  Figures layered_figures;
  bool reloaded = true;
  {
    SeenFilter layered(options);
    layered_figures = measure(layered, start, end, probes);
    const CheckpointFigures saved = measure_checkpoint(layered, dir / "layered");
    reloaded = reloaded && saved.reloaded;
    const std::string checkpoint = checkpoint_text(saved);
    std::filesystem::remove_all(dir / "layered");
    char extra[320];
    std::snprintf(extra, sizeof extra, "%llu layers, %llu inserts kSeen by a false positive, %s",
                  static_cast<unsigned long long>(layered_figures.layers),
                  static_cast<unsigned long long>(layered_figures.unrecorded), checkpoint.c_str());
    print_row("layered SeenFilter (today)", start, end, probes, layered_figures, extra);
  }
  std::fflush(stdout);
  Figures libbloom_figures;
  if (const auto why = bench::LibBloom::unsupported(end, kTarget)) {
    std::printf("| %llu -> %llu | libbloom (one array, sized for END) | - | - | - | - | - | - | %s |\n",
                static_cast<unsigned long long>(start), static_cast<unsigned long long>(end), why->c_str());
  } else {
    int k = 0;
    libbloom_figures = measure_one_array<bench::LibBloom>(end, probes, k);
    char extra[96];
    std::snprintf(extra, sizeof extra, "sized for END from the start (cannot grow), k = %d, single calls", k);
    print_row("libbloom (one-array standard Bloom)", start, end, probes, libbloom_figures, extra);
  }
  std::fflush(stdout);
  Figures standard_figures;
  {
    int k = 0;
    standard_figures = measure_one_array<bench::StandardBloom>(end, probes, k);
    char extra[128];
    std::snprintf(extra, sizeof extra,
                  "64-bit indexes, sized for END from the start (cannot grow), k = %d, single calls", k);
    print_row("one-array standard Bloom (bench/seenfilter_baselines.h)", start, end, probes, standard_figures, extra);
  }
  std::fflush(stdout);
  const std::filesystem::path compact_dir = dir / "compact";
  std::filesystem::create_directories(compact_dir);
  options.hash_log = compact_dir / seenfilter::kHashLogFileName;
  SeenFilter compact(options);
  const Figures f = measure(compact, start, end, probes);
  const auto* layers = compact.compact_layers();
  const SeenFilterStats s = compact.stats(false);
  const CheckpointFigures saved = measure_checkpoint(compact, compact_dir);
  reloaded = reloaded && saved.reloaded;
  const std::string checkpoint = checkpoint_text(saved);
  // Jobs: time per kind, and the largest extra memory a job held as a share of the filter at its
  // start, among the jobs of the last 10x of the growth; over the whole growth, the largest
  // filter on which a job held more than kRebuildMemoryShare (smaller filters hold one shard's
  // build of at least kMinShardKeys keys, which is more than 10% of them) and the most such a job held.
  double seconds[2] = {0, 0};
  double longest[2] = {0, 0};
  double worst_share = 0;
  uint64_t over_share_filter = 0;
  uint64_t over_share_extra = 0;
  uint64_t count[2] = {0, 0};
  for (const seenfilter::CompactLayers::Job& job : layers->jobs()) {
    seconds[job.merge] += job.seconds;
    longest[job.merge] = std::max(longest[job.merge], job.seconds);
    ++count[job.merge];
    const double share = static_cast<double>(job.extra_bytes) / static_cast<double>(job.filter_bytes);
    if (job.filter_bytes * 10 >= s.bytes) worst_share = std::max(worst_share, share);
    if (share > seenfilter::kRebuildMemoryShare) {
      over_share_filter = std::max(over_share_filter, job.filter_bytes);
      over_share_extra = std::max(over_share_extra, job.extra_bytes);
    }
  }
  char extra[768];
  std::snprintf(extra, sizeof extra,
                "%llu merges (%.1f s, longest %.2f s), %llu runs built (%.1f s, longest %.3f s), %zu runs at the end, "
                "big level %.2f bits/key, peak rebuild memory %.1f MB (%.1f%% of the filter at the end, at most %.1f%% "
                "of the filter at a job's start in the last 10x; over 10%% only on filters up to %.1f KB, holding at "
                "most %.1f KB), %llu inserts kSeen by a false positive, %s",
                static_cast<unsigned long long>(count[1]), seconds[1], longest[1],
                static_cast<unsigned long long>(count[0]), seconds[0], longest[0],
                static_cast<size_t>(std::count_if(s.layers.begin(), s.layers.end(),
                                                  [](const LayerStats& l) { return l.kind == "run"; })),
                s.layers.front().bits_per_key, static_cast<double>(layers->peak_rebuild_bytes()) / 1e6,
                100.0 * static_cast<double>(layers->peak_rebuild_bytes()) / static_cast<double>(s.bytes),
                100.0 * worst_share, static_cast<double>(over_share_filter) / 1e3,
                static_cast<double>(over_share_extra) / 1e3, static_cast<unsigned long long>(f.unrecorded),
                checkpoint.c_str());
  print_row("compact SeenFilter (tiered: big level + runs + active Bloom)", start, end, probes, f, extra);
  std::filesystem::remove_all(dir);
  const uint64_t missing = f.missing + layered_figures.missing + libbloom_figures.missing + standard_figures.missing;
  return missing == 0 && reloaded ? 0 : 1;
}
