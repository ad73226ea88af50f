#include "crawler/extract/links_parse_arena.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace bloomcrawl {
namespace {

// The first allocation of a parse, filled so that a sanitizer sees any use of freed memory.
const void* first_allocation(size_t expected_bytes) {
  ParseArena arena(expected_bytes);
  void* p = arena.allocate(1000);
  std::memset(p, 0x5a, 1000);
  return p;
}

TEST(ParseArena, ConsecutiveParsesOnAThreadReuseOneBlock) {
  const void* first = first_allocation(10000);
  EXPECT_EQ(first_allocation(10000), first) << "the thread's kept block serves the next parse";
  EXPECT_EQ(first_allocation(100), first) << "a smaller parse fits in it too";
}

TEST(ParseArena, AParseLargerThanTheKeptBlockGetsItsOwn) {
  const void* small = first_allocation(10000);
  ParseArena arena(4 << 20);  // a first block over the kept one's size
  char* p = static_cast<char*>(arena.allocate(3 << 20));
  std::memset(p, 1, 3 << 20);
  EXPECT_NE(static_cast<const void*>(p), small);
}

TEST(ParseArena, EachThreadKeepsItsOwnBlock) {
  const void* here = first_allocation(10000);
  const void* there = nullptr;
  std::thread([&there] {
    first_allocation(10000);
    there = first_allocation(10000);
  }).join();
  EXPECT_NE(there, here);
  EXPECT_EQ(first_allocation(10000), here);
}

TEST(ParseArena, ServesManyAllocationsAcrossBlocks) {
  ParseArena arena(1000);
  std::string expected;
  for (int i = 0; i < 5000; ++i) {  // ~5 MB: several blocks
    char* p = static_cast<char*>(arena.allocate(1000));
    std::memset(p, i & 0x7f, 1000);
    ASSERT_EQ(reinterpret_cast<uintptr_t>(p) % alignof(std::max_align_t), 0u);
  }
  EXPECT_GE(arena.bytes_reserved(), 5000u * 1000u);
}

}  // namespace
}  // namespace bloomcrawl
