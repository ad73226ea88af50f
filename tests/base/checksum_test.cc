#include "base/checksum.h"

#include <gtest/gtest.h>

#include <string>

namespace bloomcrawl {
namespace {

TEST(ChecksumTest, IsXxh3OfSeedZero) {
  // Published XXH3-64 test vectors (seed 0); the on-disk formats depend on these exact values.
  EXPECT_EQ(checksum64(std::string_view()), 0x2D06800538D394C2ull);
  EXPECT_EQ(checksum64("a"), 0xE6C632B61E964E1Full);
}

TEST(ChecksumTest, StreamingEqualsOneShotWhateverThePieces) {
  std::string data;
  for (int i = 0; i < 5000; ++i) data.push_back(static_cast<char>(i * 31 + i / 7));
  const uint64_t whole = checksum64(data);
  for (size_t piece : {1u, 7u, 64u, 240u, 1000u, 4999u}) {
    Checksum sum;
    for (size_t at = 0; at < data.size(); at += piece) sum.update(data.data() + at, std::min(piece, data.size() - at));
    EXPECT_EQ(sum.digest(), whole) << piece;
  }
  data[2500] ^= 1;
  EXPECT_NE(checksum64(data), whole);
}

}  // namespace
}  // namespace bloomcrawl
