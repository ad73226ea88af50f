// Punycode encoder/decoder (RFC 3492 samples) and the UTF-8 decoder behind the IDNA fallback.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "crawler/url_punycode.h"

namespace bloomcrawl::url_internal {
namespace {

std::string encode_utf8_text(std::string_view utf8) {
  std::vector<char32_t> code_points;
  EXPECT_TRUE(decode_utf8(utf8, code_points));
  std::string out;
  EXPECT_TRUE(punycode_encode(code_points, out));
  return out;
}

TEST(Punycode, EncodesRfc3492AndIdnaSamples) {
  EXPECT_EQ(encode_utf8_text("b\xc3\xbc" "cher"), "bcher-kva");
  EXPECT_EQ(encode_utf8_text("m\xc3\xbcnchen"), "mnchen-3ya");
  EXPECT_EQ(encode_utf8_text("\xe2\x98\x83"), "n3h");
  // RFC 3492 7.1 (A) Arabic (Egyptian) and (B) Chinese (simplified).
  EXPECT_EQ(encode_utf8_text("\xd9\x84\xd9\x8a\xd9\x87\xd9\x85\xd8\xa7\xd8\xa8\xd8\xaa\xd9\x83\xd9\x84"
                             "\xd9\x85\xd9\x88\xd8\xb4\xd8\xb9\xd8\xb1\xd8\xa8\xd9\x8a\xd8\x9f"),
            "egbpdaj6bu4bxfgehfvwxn");
  EXPECT_EQ(encode_utf8_text("\xe4\xbb\x96\xe4\xbb\xac\xe4\xb8\xba\xe4\xbb\x80\xe4\xb9\x88\xe4\xb8\x8d"
                             "\xe8\xaf\xb4\xe4\xb8\xad\xe6\x96\x87"),
            "ihqwcrb4cv8a8dqg056pqjye");
  EXPECT_EQ(encode_utf8_text("abc"), "abc-");
}

TEST(Punycode, DecodeInvertsEncode) {
  for (std::string_view encoded : {"bcher-kva", "mnchen-3ya", "n3h", "ihqwcrb4cv8a8dqg056pqjye", "abc-"}) {
    std::vector<char32_t> code_points;
    ASSERT_TRUE(punycode_decode(encoded, code_points)) << encoded;
    std::string again;
    ASSERT_TRUE(punycode_encode(code_points, again));
    EXPECT_EQ(again, encoded);
  }
}

TEST(Punycode, RejectsInvalidInput) {
  std::vector<char32_t> out;
  EXPECT_FALSE(punycode_decode("b9", out));  // ends inside a variable-length integer
  out.clear();
  EXPECT_FALSE(punycode_decode("a!b", out));
  out.clear();
  EXPECT_FALSE(punycode_decode("99999999999", out));  // incomplete, its value overflows
  out.clear();
  EXPECT_FALSE(punycode_decode("\xc3\xa9-abc", out));  // non-ASCII basic code points
}

TEST(Utf8, RejectsInvalidSequences) {
  std::vector<char32_t> out;
  EXPECT_TRUE(decode_utf8("a\xc3\xa9\xe2\x98\x83\xf0\x9f\x92\xa9", out));
  EXPECT_EQ(out, (std::vector<char32_t>{'a', 0xE9, 0x2603, 0x1F4A9}));
  std::string encoded;
  append_utf8(out, encoded);
  EXPECT_EQ(encoded, "a\xc3\xa9\xe2\x98\x83\xf0\x9f\x92\xa9");
  for (std::string_view bad : {"\x80", "\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                               "\xe2\x98"}) {
    out.clear();
    EXPECT_FALSE(decode_utf8(bad, out)) << bad.size();
  }
}

}  // namespace
}  // namespace bloomcrawl::url_internal
