#include "crawler/extract/links_parse_arena.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace bloomcrawl {
namespace {

constexpr size_t kAlignment = alignof(std::max_align_t);
constexpr size_t kMinBlockBytes = 64 << 10;
constexpr size_t kMaxBlockBytes = 16 << 20;
// The block header is padded so that the first allocation in a block is aligned.
constexpr size_t kHeaderBytes = (sizeof(void*) + kAlignment - 1) & ~(kAlignment - 1);

size_t round_up(size_t bytes) { return (bytes + kAlignment - 1) & ~(kAlignment - 1); }

void* gumbo_allocate(void* arena, size_t bytes) { return static_cast<ParseArena*>(arena)->allocate(bytes); }

void gumbo_deallocate(void* /*arena*/, void* /*ptr*/) {}

}  // namespace

ParseArena::ParseArena(size_t expected_bytes)
    : next_block_bytes_(std::clamp(round_up(expected_bytes), kMinBlockBytes, kMaxBlockBytes)) {}

ParseArena::~ParseArena() {
  while (blocks_ != nullptr) {
    Block* next = blocks_->next;
    std::free(blocks_);
    blocks_ = next;
  }
}

void* ParseArena::allocate(size_t bytes) {
  size_t rounded = round_up(bytes == 0 ? 1 : bytes);
  if (rounded <= static_cast<size_t>(limit_ - cursor_)) {
    void* result = cursor_;
    cursor_ += rounded;
    return result;
  }
  return allocate_slow(rounded);
}

void* ParseArena::allocate_slow(size_t rounded) {
  // Blocks grow geometrically so a big page needs few of them; an allocation larger than a
  // block gets a block of its own.
  size_t block_bytes = std::max(next_block_bytes_, rounded + kHeaderBytes);
  next_block_bytes_ = std::min(next_block_bytes_ * 2, kMaxBlockBytes);
  auto* block = static_cast<Block*>(std::malloc(block_bytes));
  if (block == nullptr) throw std::bad_alloc();
  block->next = blocks_;
  blocks_ = block;
  bytes_reserved_ += block_bytes;
  char* data = reinterpret_cast<char*>(block) + kHeaderBytes;
  cursor_ = data + rounded;
  limit_ = reinterpret_cast<char*>(block) + block_bytes;
  return data;
}

GumboOptions ParseArena::gumbo_options() {
  GumboOptions options = kGumboDefaultOptions;
  options.allocator = &gumbo_allocate;
  options.deallocator = &gumbo_deallocate;
  options.userdata = this;
  // Parse errors are of no use to a crawler; recording none saves their allocations.
  options.max_errors = 0;
  return options;
}

}  // namespace bloomcrawl
