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
constexpr size_t kHeaderBytes = (sizeof(void*) + sizeof(size_t) + kAlignment - 1) & ~(kAlignment - 1);
// A block up to this size is kept by its thread for the next parse (below).
constexpr size_t kSpareMaxBytes = 1 << 20;

// One block kept per thread between parses. A crawl parses a page after a page on each worker:
// without it every parse mallocs and frees a block of 64 KiB or more, an allocation large enough
// that glibc consolidates its fast bins each time (it showed in crawl profiles).
struct SpareBlock {
  SpareBlock() = default;
  SpareBlock(const SpareBlock&) = delete;
  SpareBlock& operator=(const SpareBlock&) = delete;
  ~SpareBlock() { std::free(block); }
  // Keeps `candidate` if it is larger than the kept block and not too large to keep; frees the
  // block it does not keep.
  void offer(void* candidate, size_t candidate_bytes) {
    if (candidate_bytes > kSpareMaxBytes || candidate_bytes <= bytes) {
      std::free(candidate);
      return;
    }
    std::free(block);
    block = candidate;
    bytes = candidate_bytes;
  }
  // Hands the kept block over (nullptr if none).
  void* take() {
    void* taken = block;
    block = nullptr;
    bytes = 0;
    return taken;
  }
  void* block = nullptr;
  size_t bytes = 0;
};
thread_local SpareBlock spare;

size_t round_up(size_t bytes) { return (bytes + kAlignment - 1) & ~(kAlignment - 1); }

void* gumbo_allocate(void* arena, size_t bytes) { return static_cast<ParseArena*>(arena)->allocate(bytes); }

void gumbo_deallocate(void* /*arena*/, void* /*ptr*/) {}

}  // namespace

ParseArena::ParseArena(size_t expected_bytes)
    : next_block_bytes_(std::clamp(round_up(expected_bytes), kMinBlockBytes, kMaxBlockBytes)) {}

ParseArena::~ParseArena() {
  while (blocks_ != nullptr) {
    Block* next = blocks_->next;
    spare.offer(blocks_, blocks_->bytes);
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
  Block* block = nullptr;
  if (spare.block != nullptr && spare.bytes >= block_bytes) {
    block_bytes = spare.bytes;
    block = static_cast<Block*>(spare.take());
  } else {
    block = static_cast<Block*>(std::malloc(block_bytes));
    if (block == nullptr) throw std::bad_alloc();
  }
  block->next = blocks_;
  block->bytes = block_bytes;
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
