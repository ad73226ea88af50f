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

uint64_t simhash64(std::string_view text) {
  std::array<int64_t, 64> weights{};
  bool any = false;
  std::string word;
  auto add_word = [&] {
    if (word.empty()) return;
    const uint64_t h = checksum64(word.data(), word.size());
    for (int bit = 0; bit < 64; ++bit) weights[bit] += (h >> bit & 1) != 0 ? 1 : -1;
    any = true;
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
  if (!any) return 0;
  uint64_t out = 0;
  for (int bit = 0; bit < 64; ++bit) {
    if (weights[bit] > 0) out |= uint64_t{1} << bit;
  }
  return out;
}

}  // namespace bloomcrawl
