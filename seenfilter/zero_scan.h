// The sorted filter's bucket search (sorted_filter.h): from bit `at` of a bit array, the position
// just past its `ends`-th zero bit. Two implementations of one contract: the portable one counts and
// selects in a word broadword (word_select.h), the other with the POPCNT and PDEP instructions
// (zero_scan_bmi2.cc, the one file compiled with -mpopcnt -mbmi2: we build for baseline x86-64).
// Which one pass_zeros() runs is decided once, from CPUID (cpu_has_fast_bmi2): PDEP is microcoded
// on AMD CPUs before Zen 3 (family 19h), tens of times slower than the broadword select there.
// Measured on our Zen 5 machine (bench/zero_scan_bench.cc; docs/seenfilter.md, "Seventh stop"): the
// search 25-37% faster with PDEP; since it counts four words at once, 0.33-0.44x the portable
// one's time on an Intel Xeon (bench/results/compact-filter.md, "Tenth stop"). The Python
// extension builds every file with one set of flags, so it has the portable one only.
//
// Contract: `words` holds at least `ends` zero bits from bit `at` on, and at least kPassZerosWords
// words from `at`'s word on, which may be read whether or not the zero is in them (the sorted
// filter's unary part ends with a bucket's end and padding words). ends = 0 returns `at`.
#pragma once

#include <cstdint>

namespace bloomcrawl::seenfilter {

inline constexpr uint64_t kPassZerosWords = 4;  // zero_scan_bmi2.cc counts them without a branch

uint64_t pass_zeros_portable(const uint64_t* words, uint64_t at, uint64_t ends);
// Only on a CPU with POPCNT and BMI2 (an illegal instruction elsewhere). Where the file was built
// without them (not x86-64), zero_scan_bmi2_built() is false and this is the portable one.
uint64_t pass_zeros_bmi2(const uint64_t* words, uint64_t at, uint64_t ends);
bool zero_scan_bmi2_built();

// True on an x86-64 CPU with POPCNT and BMI2 whose PDEP is fast (not AMD or Hygon before family 19h).
bool cpu_has_fast_bmi2();

// The fastest of the two this CPU runs.
using PassZeros = uint64_t (*)(const uint64_t* words, uint64_t at, uint64_t ends);
PassZeros pass_zeros_for_this_cpu();
inline uint64_t pass_zeros(const uint64_t* words, uint64_t at, uint64_t ends) {
  static const PassZeros chosen = pass_zeros_for_this_cpu();
  return chosen(words, at, ends);
}

}  // namespace bloomcrawl::seenfilter
