#include "frontier/url_arena.h"

#include <cstring>

namespace bloomcrawl {
namespace {
constexpr size_t kBlockBytes = size_t{64} * 1024;
}  // namespace

std::string_view UrlArena::store(std::string_view bytes) {
  if (bytes.empty()) return bytes;  // an empty view needs no storage
  if (bytes.size() > remaining_) {
    // Oversized strings get a block of their own so the current block's tail is not wasted.
    const size_t block = bytes.size() > kBlockBytes / 4 ? bytes.size() : kBlockBytes;
    blocks_.push_back(std::make_unique<char[]>(block));
    allocated_ += block;
    if (block != kBlockBytes) {
      std::memcpy(blocks_.back().get(), bytes.data(), bytes.size());
      return {blocks_.back().get(), bytes.size()};
    }
    cursor_ = blocks_.back().get();
    remaining_ = block;
  }
  std::memcpy(cursor_, bytes.data(), bytes.size());
  const std::string_view stored(cursor_, bytes.size());
  cursor_ += bytes.size();
  remaining_ -= bytes.size();
  return stored;
}

}  // namespace bloomcrawl
