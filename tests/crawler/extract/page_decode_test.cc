// Decoding pages to UTF-8 as the Encoding Standard's decoders do. Expected text is written as
// UTF-8 literals; the bytes are those of each encoding (as Python's codecs and the standard's
// indexes give them), so ICU is checked, not trusted.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>

#include "crawler/extract/page_decode.h"
#include "tests/crawler/extract/links_test_util.h"

namespace bloomcrawl {
namespace {

using namespace std::literals;

TEST(PageDecode, CjkEncodings) {
  EXPECT_EQ(decode_to_utf8("\xD6\xD0\xCE\xC4 \xB2\xBC\xC2\xA1", Encoding::kGbk), "中文 布隆");
  // GBK pages are read with the gb18030 decoder: four-byte sequences and 0x80 as the euro sign.
  EXPECT_EQ(decode_to_utf8("\x95\x32\x82\x36\x80\xA2\xE3", Encoding::kGbk), "𠀀€€");
  EXPECT_EQ(decode_to_utf8("\xD6\xD0\x95\x32\x82\x36\x80", Encoding::kGb18030), "中𠀀€");
  EXPECT_EQ(decode_to_utf8("\xA4\xA4\xA4\xE5\xA5\x78\xA5\x5F", Encoding::kBig5), "中文台北");
  EXPECT_EQ(decode_to_utf8("\x87\x40\xA3\xE1", Encoding::kBig5), "\xE4\x8F\xB0€");  // HKSCS U+43F0, ETEN euro
  EXPECT_EQ(decode_to_utf8("\x93\xFA\x96\x7B\x83\x5C\x87\x40\xED\x40", Encoding::kShiftJis), "日本ソ①纊");
  EXPECT_EQ(decode_to_utf8("\x5C\x7E\xB1", Encoding::kShiftJis), "\\~ｱ");
  EXPECT_EQ(decode_to_utf8("\x80", Encoding::kShiftJis), "\xC2\x80");
  EXPECT_EQ(decode_to_utf8("\xC7\xD1\xB1\xB9\x81\x41", Encoding::kEucKr), "한국갂");     // 0x8141: Unified Hangul
  EXPECT_EQ(decode_to_utf8("\xA4\xA2\x8E\xB1\x8F\xB0\xA1", Encoding::kEucJp), "あｱ丂");  // JIS X 0212 too
  EXPECT_EQ(decode_to_utf8("a\x1B$B$\"\x1B(Bb", Encoding::kIso2022Jp), "aあb");
}

TEST(PageDecode, SingleByteEncodings) {
  EXPECT_EQ(decode_to_utf8("caf\xE9 \x80\x81\x8D\x9F", Encoding::kWindows1252), "café €\xC2\x81\xC2\x8DŸ");
  EXPECT_EQ(decode_to_utf8("\xC6", Encoding::kWindows1251), "Ж");
  EXPECT_EQ(decode_to_utf8("\xE1", Encoding::kKoi8R), "А");
  EXPECT_EQ(decode_to_utf8("\xBA\xA4\x80", Encoding::kIso8859_16), "ș€\xC2\x80");
  EXPECT_EQ(decode_to_utf8("\xE0", Encoding::kIso8859_8I), "א");
  EXPECT_EQ(decode_to_utf8("\xA5", Encoding::kIso8859_3), "\xEF\xBF\xBD");  // unassigned
}

TEST(PageDecode, Utf16) {
  EXPECT_EQ(decode_to_utf8("<\0\x2D\x4E"sv, Encoding::kUtf16Le), "<中");
  EXPECT_EQ(decode_to_utf8("\0<\x4E\x2D"sv, Encoding::kUtf16Be), "<中");
  EXPECT_EQ(decode_to_utf8("\x3D\xD8\x00\xDE"sv, Encoding::kUtf16Le), "😀");
  EXPECT_EQ(decode_to_utf8("\x00\xDEx\0"sv, Encoding::kUtf16Le), "\xEF\xBF\xBDx");  // lone trail surrogate
  EXPECT_EQ(decode_to_utf8("\x3D\xD8x\0"sv, Encoding::kUtf16Le), "\xEF\xBF\xBDx");  // lone lead surrogate
  EXPECT_EQ(decode_to_utf8("a\0b"sv, Encoding::kUtf16Le), "a\xEF\xBF\xBD");         // odd byte at the end
}

TEST(PageDecode, ErrorsBecomeOneReplacementCharacterEach) {
  const std::string fffd = "\xEF\xBF\xBD";
  // A lead byte with an ASCII byte after it: the ASCII byte is read again, as itself.
  EXPECT_EQ(decode_to_utf8("\xFE<a", Encoding::kGbk), fffd + "<a");
  EXPECT_EQ(decode_to_utf8("\xFE\x30x", Encoding::kGb18030), fffd + "0x");  // a four-byte sequence cut short
  EXPECT_EQ(decode_to_utf8("\x81<a>", Encoding::kShiftJis), fffd + "<a>");
  EXPECT_EQ(decode_to_utf8("\xA0\xFD", Encoding::kShiftJis), fffd + fffd);  // never ICU's U+001A
  EXPECT_EQ(decode_to_utf8("\x80", Encoding::kBig5), fffd);
  EXPECT_EQ(decode_to_utf8("x\xD6", Encoding::kGbk), "x" + fffd);  // cut at the end
  EXPECT_EQ(decode_to_utf8("a\xC3(\xE4\xB8", Encoding::kUtf8), "a" + fffd + "(" + fffd);
}

TEST(PageDecode, EncodingsWithoutIcu) {
  EXPECT_EQ(decode_to_utf8("a\x80\xFF", Encoding::kXUserDefined), "a\xEF\x9E\x80\xEF\x9F\xBF");
  EXPECT_EQ(decode_to_utf8("<a href=x>", Encoding::kReplacement), "\xEF\xBF\xBD");
  EXPECT_EQ(decode_to_utf8("", Encoding::kReplacement), "");
}

TEST(PageDecode, LargePagesGrowTheOutput) {
  // Thai: one byte becomes three, past the first guess at the output's size.
  const std::string thai(100000, '\xA1');
  std::string expected;
  for (size_t i = 0; i < thai.size(); ++i) expected += "ก";
  EXPECT_EQ(decode_to_utf8(thai, Encoding::kWindows874), expected);
}

TEST(PageDecode, AnyBytesGiveValidUtf8InEveryEncoding) {
  std::mt19937 random(7);
  for (int round = 0; round < 20; ++round) {
    std::string bytes(1 + random() % 3000, '\0');
    for (char& c : bytes) c = static_cast<char>(random());
    for (int i = 0; i < kEncodingCount; ++i) {
      const auto encoding = static_cast<Encoding>(i);
      std::string text = decode_to_utf8(bytes, encoding);
      EXPECT_TRUE(links_test::is_valid_utf8(text)) << encoding_name(encoding);
      EXPECT_FALSE(text.empty()) << encoding_name(encoding);
    }
  }
}

}  // namespace
}  // namespace bloomcrawl
