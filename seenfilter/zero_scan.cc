#include "seenfilter/zero_scan.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <cstring>

#include "seenfilter/word_select.h"

namespace bloomcrawl::seenfilter {

uint64_t pass_zeros_portable(const uint64_t* words, uint64_t at, uint64_t ends) {
  while (ends > 0) {
    const uint64_t zeros = ~words[at / 64] >> (at % 64);  // from `at` to the word's end
    const uint64_t sums = byte_prefix_counts(zeros);
    const uint64_t found = sums >> 56;
    if (found >= ends) return at + select_bit(zeros, sums, static_cast<uint32_t>(ends - 1)) + 1;
    ends -= found;
    at += 64 - at % 64;
  }
  return at;
}

bool cpu_has_fast_bmi2() {
#if defined(__x86_64__)
  unsigned eax = 0;
  unsigned ebx = 0;
  unsigned ecx = 0;
  unsigned edx = 0;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0 || eax < 7) return false;
  char vendor[12];
  std::memcpy(vendor, &ebx, 4);
  std::memcpy(vendor + 4, &edx, 4);
  std::memcpy(vendor + 8, &ecx, 4);
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
  const bool popcnt = (ecx >> 23) & 1;
  const unsigned base_family = (eax >> 8) & 0xf;
  const unsigned family = base_family == 0xf ? base_family + ((eax >> 20) & 0xff) : base_family;
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  const bool bmi2 = (ebx >> 8) & 1;
  const bool amd_like = std::memcmp(vendor, "AuthenticAMD", 12) == 0 || std::memcmp(vendor, "HygonGenuine", 12) == 0;
  return popcnt && bmi2 && !(amd_like && family < 0x19);
#else
  return false;
#endif
}

PassZeros pass_zeros_for_this_cpu() {
  return zero_scan_bmi2_built() && cpu_has_fast_bmi2() ? pass_zeros_bmi2 : pass_zeros_portable;
}

}  // namespace bloomcrawl::seenfilter
