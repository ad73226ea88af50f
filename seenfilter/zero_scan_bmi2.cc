// pass_zeros_bmi2 (zero_scan.h), with POPCNT and PDEP. This file alone is compiled with -mpopcnt
// -mbmi2 (CMakeLists.txt), so it includes no header that defines inline functions: a copy of one
// compiled here could be the copy the linker keeps for every caller, on any CPU.
#include <cstdint>

#if defined(__x86_64__) && defined(__BMI2__) && defined(__POPCNT__)
#include <immintrin.h>
#endif

namespace bloomcrawl::seenfilter {

uint64_t pass_zeros_portable(const uint64_t* words, uint64_t at, uint64_t ends);

#if defined(__x86_64__) && defined(__BMI2__) && defined(__POPCNT__)

bool zero_scan_bmi2_built() { return true; }

uint64_t pass_zeros_bmi2(const uint64_t* words, uint64_t at, uint64_t ends) {
  while (ends > 0) {
    const uint64_t zeros = ~words[at / 64] >> (at % 64);  // from `at` to the word's end
    const auto found = static_cast<uint64_t>(_mm_popcnt_u64(zeros));
    if (found >= ends)
      return at + static_cast<uint64_t>(__builtin_ctzll(_pdep_u64(uint64_t{1} << (ends - 1), zeros))) + 1;
    ends -= found;
    at += 64 - at % 64;
  }
  return at;
}

#else

bool zero_scan_bmi2_built() { return false; }
uint64_t pass_zeros_bmi2(const uint64_t* words, uint64_t at, uint64_t ends) {
  return pass_zeros_portable(words, at, ends);
}

#endif

}  // namespace bloomcrawl::seenfilter
