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

namespace {

uint64_t pass_zeros_word_by_word(const uint64_t* words, uint64_t at, uint64_t ends) {
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

}  // namespace

// The four words from `at`'s on are counted at once and the zero selected in the one it falls in,
// without a branch: word by word, the loop's end was a branch the predictor missed (a sorted
// filter's bucket is 0-4 words past its sample).
uint64_t pass_zeros_bmi2(const uint64_t* words, uint64_t at, uint64_t ends) {
  if (ends == 0) return at;
  const uint64_t w = at / 64;
  const uint64_t zeros[4] = {~words[w] >> (at % 64), ~words[w + 1], ~words[w + 2], ~words[w + 3]};
  uint64_t before[4];  // zeros in the words before each
  before[0] = 0;
  for (int i = 1; i < 4; ++i) before[i] = before[i - 1] + static_cast<uint64_t>(_mm_popcnt_u64(zeros[i - 1]));
  const uint64_t all = before[3] + static_cast<uint64_t>(_mm_popcnt_u64(zeros[3]));
  if (ends > all) return pass_zeros_word_by_word(words, (w + 4) * 64, ends - all);
  const uint64_t i = uint64_t{ends > before[1]} + uint64_t{ends > before[2]} + uint64_t{ends > before[3]};
  const uint64_t start = i == 0 ? at : (w + i) * 64;
  return start + static_cast<uint64_t>(__builtin_ctzll(_pdep_u64(uint64_t{1} << (ends - before[i] - 1), zeros[i]))) + 1;
}

#else

bool zero_scan_bmi2_built() { return false; }
uint64_t pass_zeros_bmi2(const uint64_t* words, uint64_t at, uint64_t ends) {
  return pass_zeros_portable(words, at, ends);
}

#endif

}  // namespace bloomcrawl::seenfilter
