// The sorted filter's bucket search (seenfilter/zero_scan.h), portable broadword against POPCNT and
// PDEP, in one process on the same arrays and buckets, alternating round by round (medians of
// kRounds): unary parts built as a sorted filter builds its own (n keys, f = 25, a sampled bucket
// start every 128 buckets), `kArrays` of them as a lookup probes several shards, searched in
// windows of 32 buckets whose sample and first word are prefetched first, as SortedFilter does.
//
//   zero_scan_bench                                   # sizes 2^12, 2^16, 2^19, 2^22 keys
//
// Prints one markdown row per size: ns per search of each, their ratio, and which one this CPU
// runs (cpu_has_fast_bmi2). Without BMI2 it times the portable one alone.
#include <ctime>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "base/prefetch.h"
#include "seenfilter/compact_math.h"
#include "seenfilter/zero_scan.h"

namespace {

using namespace bloomcrawl::seenfilter;
using bloomcrawl::prefetch_for_read;

constexpr int kRounds = 7;
constexpr size_t kArrays = 4;
constexpr size_t kWindow = 32;
constexpr size_t kSearches = size_t{1} << 21;
constexpr uint32_t kBucketsPerSample = kSortedBucketsPerSample;

struct Unary {
  std::vector<uint64_t> words;    // a one per key, a zero per bucket end; + padding words
  std::vector<uint32_t> samples;  // start of every kBucketsPerSample-th bucket
};

Unary make_unary(uint64_t keys, std::mt19937_64& rng) {
  std::vector<uint64_t> buckets(keys);  // each key's bucket: uniform in [0, keys)
  for (uint64_t& b : buckets) b = rng() % keys;
  std::sort(buckets.begin(), buckets.end());
  Unary u;
  u.words.assign((2 * keys + 63) / 64 + kPassZerosWords, 0);  // padding words, as SortedFilter has
  u.samples.assign((keys + kBucketsPerSample - 1) / kBucketsPerSample, 0);
  uint64_t next_sample = 0;
  for (uint64_t i = 0; i < keys; ++i) {
    for (; next_sample * kBucketsPerSample <= buckets[i]; ++next_sample) {
      u.samples[next_sample] = static_cast<uint32_t>(i + next_sample * kBucketsPerSample);
    }
    const uint64_t at = buckets[i] + i;
    u.words[at / 64] |= uint64_t{1} << (at % 64);
  }
  for (; next_sample < u.samples.size(); ++next_sample) {
    u.samples[next_sample] = static_cast<uint32_t>(keys + next_sample * kBucketsPerSample);
  }
  return u;
}

double thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// ns per search over every array for every bucket; `sink` keeps the results live.
double time_searches(PassZeros pass, const std::vector<Unary>& arrays, const std::vector<uint64_t>& buckets,
                     uint64_t& sink) {
  const double start = thread_cpu_ns();
  for (size_t w = 0; w + kWindow <= buckets.size(); w += kWindow) {
    for (const Unary& u : arrays) {
      for (size_t i = w; i < w + kWindow; ++i) {
        prefetch_for_read(&u.samples[buckets[i] / kBucketsPerSample]);
        prefetch_for_read(&u.words[std::min<uint64_t>(2 * buckets[i] / 64, u.words.size() - 1)]);
      }
    }
    for (const Unary& u : arrays) {
      for (size_t i = w; i < w + kWindow; ++i) {
        const uint64_t b = buckets[i];
        sink += pass(u.words.data(), u.samples[b / kBucketsPerSample], b % kBucketsPerSample);
      }
    }
  }
  return (thread_cpu_ns() - start) / static_cast<double>(buckets.size() * arrays.size());
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main() {
  const bool bmi2 = cpu_has_fast_bmi2() && zero_scan_bmi2_built();
  std::printf("| keys per array (x%zu arrays) | portable ns/search | POPCNT+PDEP ns/search | ratio | this CPU runs |\n",
              kArrays);
  std::printf("|---|---|---|---|---|\n");
  std::mt19937_64 rng(42);
  uint64_t sink = 0;
  for (const uint64_t keys : {uint64_t{1} << 12, uint64_t{1} << 16, uint64_t{1} << 19, uint64_t{1} << 22}) {
    std::vector<Unary> arrays;
    for (size_t a = 0; a < kArrays; ++a) arrays.push_back(make_unary(keys, rng));
    std::vector<uint64_t> buckets(kSearches);
    for (uint64_t& b : buckets) b = rng() % keys;
    std::vector<double> portable;
    std::vector<double> fast;
    for (int round = 0; round < kRounds; ++round) {
      portable.push_back(time_searches(&pass_zeros_portable, arrays, buckets, sink));
      if (bmi2) fast.push_back(time_searches(&pass_zeros_bmi2, arrays, buckets, sink));
    }
    const double p = median(portable);
    if (bmi2) {
      const double f = median(fast);
      std::printf("| %llu | %.1f | %.1f | %.2f | %s |\n", static_cast<unsigned long long>(keys), p, f, f / p,
                  pass_zeros_for_this_cpu() == &pass_zeros_bmi2 ? "POPCNT+PDEP" : "portable");
    } else {
      std::printf("| %llu | %.1f | - | - | portable |\n", static_cast<unsigned long long>(keys), p);
    }
  }
  std::fprintf(stderr, "(checksum %llu)\n", static_cast<unsigned long long>(sink));
}
