#include "crawler/content/simhash.h"

#include <array>
#include <string>

#include "base/checksum.h"

namespace bloomcrawl {
namespace {

bool word_byte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

char lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }

}  // namespace

// The fingerprint's bit b is set when more of the text's words have bit b of their hash set than
// clear. Counted eight bits at a time: byte k of lanes[j] counts bit 8k + j of the words' hashes,
// one shift, mask and add per j, and the lanes go into the per-bit totals before a byte can pass
// 255. A word costs 8 adds instead of 64, one per bit, which made simhash64 3.7% of a crawl's CPU
// (perf, the test web's 35,000 pages).
uint64_t simhash64(std::string_view text) {
  constexpr uint64_t kLowBitOfEachByte = 0x0101010101010101;
  constexpr uint32_t kWordsPerDrain = 255;
  std::array<uint64_t, 8> lanes{};
  std::array<uint32_t, 64> set{};  // per bit: the words whose hash has it
  uint32_t words = 0;
  uint32_t in_lanes = 0;
  auto drain = [&] {
    for (int j = 0; j < 8; ++j) {
      for (int k = 0; k < 8; ++k) set[8 * k + j] += uint32_t(lanes[j] >> (8 * k) & 0xff);
    }
    lanes = {};
    in_lanes = 0;
  };
  std::string word;
  auto add_word = [&] {
    if (word.empty()) return;
    const uint64_t h = checksum64(word.data(), word.size());
    for (int j = 0; j < 8; ++j) lanes[j] += h >> j & kLowBitOfEachByte;
    ++words;
    if (++in_lanes == kWordsPerDrain) drain();
    word.clear();
  };
  for (const char c : text) {
    if (word_byte(static_cast<unsigned char>(c))) {
      word.push_back(lower(c));
    } else {
      add_word();
    }
  }
  add_word();
  if (words == 0) return 0;
  drain();
  uint64_t out = 0;
  for (int bit = 0; bit < 64; ++bit) {
    if (2 * uint64_t(set[bit]) > words) out |= uint64_t{1} << bit;  // set minus clear > 0
  }
  return out;
}

}  // namespace bloomcrawl
