// A bump allocator for one Gumbo parse. Gumbo allocates every token, node, attribute and string
// buffer separately; serving them from large blocks and dropping the blocks at once makes the
// parse cheaper than with malloc, and lets the caller skip gumbo_destroy_output(), whose
// recursion over the tree would overflow the stack on deeply nested pages.
//
// Freed memory is not reused (Gumbo frees mostly the old storage of a vector or string buffer
// it has just doubled), so the arena holds at most about twice what Gumbo has live. When the
// arena goes, its thread keeps its largest block of up to 1 MiB for the next parse on it.
#pragma once

#include <cstddef>

#include <gumbo.h>

namespace bloomcrawl {

class ParseArena {
 public:
  // `expected_bytes`: a guess of the total allocation, to size the first block.
  explicit ParseArena(size_t expected_bytes);
  ~ParseArena();
  ParseArena(const ParseArena&) = delete;
  ParseArena& operator=(const ParseArena&) = delete;

  void* allocate(size_t bytes);
  size_t bytes_reserved() const { return bytes_reserved_; }

  // Gumbo options that route every allocation of a parse to this arena. The arena must outlive
  // the GumboOutput; do not call gumbo_destroy_output() on it.
  GumboOptions gumbo_options();

 private:
  struct Block {
    Block* next;
    size_t bytes;
  };
  void* allocate_slow(size_t rounded);

  char* cursor_ = nullptr;
  char* limit_ = nullptr;
  Block* blocks_ = nullptr;
  size_t next_block_bytes_;
  size_t bytes_reserved_ = 0;
};

}  // namespace bloomcrawl
