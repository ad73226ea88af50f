#include "base/coding.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace bloomcrawl {
namespace {

TEST(CodingTest, FixedWidthIsLittleEndianWhateverTheHost) {
  std::string out;
  put_le(out, 0x0102030405060708ull, 8);
  EXPECT_EQ(out, std::string("\x08\x07\x06\x05\x04\x03\x02\x01", 8));
  put_le(out, 0xAABBCCDDu, 4);
  EXPECT_EQ(out.substr(8), "\xDD\xCC\xBB\xAA");
  EXPECT_EQ(get_le(out, 0, 8), 0x0102030405060708ull);
  EXPECT_EQ(get_le(out, 8, 4), 0xAABBCCDDu);
  EXPECT_EQ(get_le(out, 8, 2), 0xCCDDu);
}

TEST(CodingTest, StoreAndLoadAgreeWithPutAndGet) {
  uint8_t buf[8];
  store_u64(buf, 0xFEDCBA9876543210ull);
  std::string put;
  put_le(put, 0xFEDCBA9876543210ull, 8);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(buf), 8), put);
  EXPECT_EQ(load_u64(buf), 0xFEDCBA9876543210ull);
  store_u32(buf, 0x80000001u);
  EXPECT_EQ(load_u32(buf), 0x80000001u);
  EXPECT_EQ(buf[0], 0x01);
  EXPECT_EQ(buf[3], 0x80);
}

TEST(CodingTest, WordArraysAreCodedAsPutAndGetCodeEachWord) {
  const std::vector<uint64_t> words = {0x0102030405060708ull, 0, ~0ull, 0xFEDCBA9876543210ull};
  const std::vector<uint32_t> halves = {0xAABBCCDDu, 1u};
  std::string bulk = "hd";  // appended after what is there
  put_le_words<uint64_t>(bulk, words);
  put_le_words<uint32_t>(bulk, halves);
  put_le_words<uint64_t>(bulk, {});
  std::string each = "hd";
  for (const uint64_t w : words) put_le(each, w, 8);
  for (const uint32_t h : halves) put_le(each, h, 4);
  EXPECT_EQ(bulk, each);

  std::vector<uint64_t> words_back(words.size());
  get_le_words<uint64_t>(bulk, 2, words_back);
  EXPECT_EQ(words_back, words);
  std::vector<uint32_t> halves_back(halves.size());
  get_le_words<uint32_t>(bulk, 2 + words.size() * 8, halves_back);
  EXPECT_EQ(halves_back, halves);
}

TEST(CodingTest, VarintsRoundTripAtEveryLengthBoundary) {
  for (int bits = 0; bits <= 64; ++bits) {
    for (uint64_t value :
         {bits == 0 ? 0 : (uint64_t{1} << (bits - 1)), bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1}) {
      std::string out;
      append_varint(out, value);
      EXPECT_EQ(out.size(), varint_length(value)) << value;
      uint64_t decoded = 0;
      EXPECT_EQ(decode_varint(out.data(), out.data() + out.size(), &decoded), out.data() + out.size());
      EXPECT_EQ(decoded, value);
    }
  }
  std::string out;
  append_varint(out, 300);
  EXPECT_EQ(out, "\xAC\x02");  // the LEB128 example
}

TEST(CodingTest, VarintDecodingRejectsTruncatedAndOverlongInput) {
  uint64_t value = 0;
  const std::string truncated = "\xFF\xFF";
  EXPECT_EQ(decode_varint(truncated.data(), truncated.data() + truncated.size(), &value), nullptr);
  EXPECT_EQ(decode_varint(truncated.data(), truncated.data(), &value), nullptr);
  const std::string overflow = std::string(9, '\xFF') + "\x02";  // bit 64 set
  EXPECT_EQ(decode_varint(overflow.data(), overflow.data() + overflow.size(), &value), nullptr);
  const std::string eleven = std::string(10, '\x80') + '\0';
  EXPECT_EQ(decode_varint(eleven.data(), eleven.data() + eleven.size(), &value), nullptr);
}

}  // namespace
}  // namespace bloomcrawl
