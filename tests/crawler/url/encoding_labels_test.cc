// The Encoding Standard's labels (https://encoding.spec.whatwg.org/#names-and-labels) and the
// ICU converters behind them.
#include <gtest/gtest.h>

#include <unicode/ucnv.h>

#include "crawler/url/encoding.h"

namespace bloomcrawl {
namespace {

TEST(EncodingLabels, LegacyNamesMeanWhatBrowsersRead) {
  for (const char* label : {"gb2312", "chinese", "x-gbk", "gbk", "GB_2312-80", "csGB2312", "iso-ir-58"}) {
    EXPECT_EQ(encoding_from_label(label), Encoding::kGbk) << label;
  }
  for (const char* label :
       {"latin1", "iso-8859-1", "ISO8859-1", "ascii", "us-ascii", "ansi_x3.4-1968", "cp819", "windows-1252", "l1"}) {
    EXPECT_EQ(encoding_from_label(label), Encoding::kWindows1252) << label;
  }
  for (const char* label : {"shift_jis", "sjis", "Shift-JIS", "ms932", "windows-31j", "x-sjis", "ms_kanji"}) {
    EXPECT_EQ(encoding_from_label(label), Encoding::kShiftJis) << label;
  }
  for (const char* label : {"euc-kr", "windows-949", "ks_c_5601-1987", "korean"}) {
    EXPECT_EQ(encoding_from_label(label), Encoding::kEucKr) << label;
  }
  for (const char* label : {"big5", "big5-hkscs", "cn-big5", "x-x-big5"}) {
    EXPECT_EQ(encoding_from_label(label), Encoding::kBig5) << label;
  }
  EXPECT_EQ(encoding_from_label("gb18030"), Encoding::kGb18030);
  EXPECT_EQ(encoding_from_label("utf-16"), Encoding::kUtf16Le);
  EXPECT_EQ(encoding_from_label("unicode"), Encoding::kUtf16Le);
  EXPECT_EQ(encoding_from_label("utf-16be"), Encoding::kUtf16Be);
  EXPECT_EQ(encoding_from_label("utf8"), Encoding::kUtf8);
  EXPECT_EQ(encoding_from_label("unicode-1-1-utf-8"), Encoding::kUtf8);
  EXPECT_EQ(encoding_from_label("iso-8859-9"), Encoding::kWindows1254);  // latin5 is windows-1254
  EXPECT_EQ(encoding_from_label("tis-620"), Encoding::kWindows874);
  EXPECT_EQ(encoding_from_label("iso-2022-kr"), Encoding::kReplacement);
  EXPECT_EQ(encoding_from_label("hz-gb-2312"), Encoding::kReplacement);
  EXPECT_EQ(encoding_from_label("x-user-defined"), Encoding::kXUserDefined);
  EXPECT_EQ(encoding_from_label("logical"), Encoding::kIso8859_8I);
  EXPECT_EQ(encoding_from_label("cseucpkdfmtjapanese"), Encoding::kEucJp);  // the longest label
}

TEST(EncodingLabels, AsciiWhitespaceAndCaseAreIgnored) {
  EXPECT_EQ(encoding_from_label(" \t\n\f\rGB2312 \r\n"), Encoding::kGbk);
  EXPECT_EQ(encoding_from_label("UTF-8"), Encoding::kUtf8);
  EXPECT_EQ(encoding_from_label("\vutf-8"), std::nullopt);        // vertical tab is no ASCII whitespace
  EXPECT_EQ(encoding_from_label("utf-8\xC2\xA0"), std::nullopt);  // nor is U+00A0
}

TEST(EncodingLabels, UnknownLabelsAreNotGuessed) {
  for (const char* label : {"", " ", "utf-7", "utf-32", "gbk2", "iso-8859-1 x", "iso-8859-12", "ebcdic", "x-mac-greek",
                            "cseucpkdfmtjapanesex", "utf_8", "latin 1"}) {
    EXPECT_EQ(encoding_from_label(label), std::nullopt) << label;
  }
}

TEST(EncodingLabels, NamesAndOutputEncodings) {
  EXPECT_STREQ(encoding_name(Encoding::kGbk), "GBK");
  EXPECT_STREQ(encoding_name(Encoding::kShiftJis), "Shift_JIS");
  EXPECT_STREQ(encoding_name(Encoding::kWindows1252), "windows-1252");
  for (int i = 0; i < kEncodingCount; ++i) {
    const auto encoding = static_cast<Encoding>(i);
    // Every encoding's name is one of its labels.
    EXPECT_EQ(encoding_from_label(encoding_name(encoding)), encoding) << encoding_name(encoding);
    const bool utf8_out =
        encoding == Encoding::kUtf16Be || encoding == Encoding::kUtf16Le || encoding == Encoding::kReplacement;
    EXPECT_EQ(output_encoding(encoding), utf8_out ? Encoding::kUtf8 : encoding) << encoding_name(encoding);
  }
}

TEST(EncodingLabels, EveryIcuConverterExists) {
  for (int i = 0; i < kEncodingCount; ++i) {
    const auto encoding = static_cast<Encoding>(i);
    const char* name = icu_converter_name(encoding);
    const bool decoded_by_hand =
        encoding == Encoding::kReplacement || encoding == Encoding::kXUserDefined || encoding == Encoding::kIso8859_16;
    if (decoded_by_hand) {
      EXPECT_EQ(name, nullptr) << encoding_name(encoding);
      continue;
    }
    ASSERT_NE(name, nullptr) << encoding_name(encoding);
    UErrorCode status = U_ZERO_ERROR;
    UConverter* converter = ucnv_open(name, &status);
    EXPECT_TRUE(U_SUCCESS(status)) << name << ": " << u_errorName(status);
    // Not a fallback: ICU warns when it substitutes a default converter for an unknown name.
    EXPECT_NE(status, U_USING_DEFAULT_WARNING) << name;
    ucnv_close(converter);
  }
}

}  // namespace
}  // namespace bloomcrawl
