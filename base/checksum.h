// The one checksum of the on-disk formats: XXH3-64 (seed 0), whole or in pieces. Both forms give
// the same value for the same bytes. The journal stores its low 32 bits per record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace bloomcrawl {

uint64_t checksum64(const void* data, size_t size);
inline uint64_t checksum64(std::string_view bytes) { return checksum64(bytes.data(), bytes.size()); }

// checksum64 over bytes given in pieces (a layer file streamed from disk).
class Checksum {
 public:
  Checksum();
  ~Checksum();
  Checksum(const Checksum&) = delete;
  Checksum& operator=(const Checksum&) = delete;
  void update(const void* data, size_t size);
  uint64_t digest() const;

 private:
  void* state_;
};

}  // namespace bloomcrawl
