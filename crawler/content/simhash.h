// SimHash (Charikar 2002) of a page's text, as Manku, Jain and Das Sarma (WWW 2007) used it for
// near-duplicate web pages: 64 bits, features the text's words (lower-cased runs of letters and
// digits) weighted by count, and two pages near duplicates when their fingerprints differ in at
// most 3 bits (docs/content-seen.md, "Near duplicates"). Pure functions.
#pragma once

#include <bit>
#include <cstdint>
#include <string_view>

namespace bloomcrawl {

// Manku et al.'s threshold: fingerprints this many bits apart or fewer are near duplicates.
inline constexpr int kNearDuplicateBits = 3;

// The SimHash of `text` (any bytes; words are ASCII letters and digits and every byte >= 0x80, so
// UTF-8 words stay whole). 0 for a text without words.
uint64_t simhash64(std::string_view text);

inline int hamming_distance(uint64_t a, uint64_t b) { return std::popcount(a ^ b); }

}  // namespace bloomcrawl
