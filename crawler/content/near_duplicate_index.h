// NearDuplicateIndex: the pages seen so far by their text's SimHash, answering "is there one within
// kNearDuplicateBits (3) bits of this one?" with Manku, Jain and Das Sarma's tables (WWW 2007):
// the 64 bits cut into 4 blocks of 16; two fingerprints at most 3 bits apart agree on at least one
// whole block (pigeonhole), so 4 tables, each keyed by one block, hold every candidate, and only
// the fingerprints sharing a block with the query are compared.
// Contract: find_or_add() returns the first page added whose fingerprint is within 3 bits, or adds
// this one (when there is room: at most kMaxPages are kept) and returns nothing. Thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace bloomcrawl {

class NearDuplicateIndex {
 public:
  static constexpr size_t kMaxPages = 1000000;

  std::optional<std::string> find_or_add(uint64_t fingerprint, std::string_view url);
  size_t size() const;

 private:
  struct Page {
    uint64_t fingerprint;
    std::string url;
  };
  mutable std::mutex mu_;
  std::vector<Page> pages_;
  std::array<std::unordered_map<uint16_t, std::vector<uint32_t>>, 4> tables_;  // block value -> pages_ indexes
};

}  // namespace bloomcrawl
