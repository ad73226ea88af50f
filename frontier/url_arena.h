// UrlArena: append-only storage for the strings the frontier keeps for a host's whole life (its key,
// its politeness group name, the reference prefix its URLs are front-coded against). Bytes go into
// 64 KiB blocks, so a million short strings cost their length plus nothing per string, and the
// returned views stay valid until the arena is destroyed. Not thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

namespace bloomcrawl {

class UrlArena {
 public:
  // Copies `bytes` into the arena; the view stays valid for the arena's lifetime.
  std::string_view store(std::string_view bytes);
  size_t allocated_bytes() const { return allocated_; }

 private:
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* cursor_ = nullptr;
  size_t remaining_ = 0;
  size_t allocated_ = 0;
};

}  // namespace bloomcrawl
