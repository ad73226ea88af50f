// page_text() (crawler/content/page_text.h): the text outside tags, comments, scripts and styles,
// and the first title.
#include "crawler/content/page_text.h"

#include <gtest/gtest.h>

namespace bloomcrawl {
namespace {

TEST(PageTextTest, KeepsTheTextAndTheTitleAndDropsMarkupScriptsStylesAndComments) {
  const PageText t = page_text(
      "<html><head><TITLE> Item 7 </TITLE><style>p{color:red}</style><script>var x='<b>';</script></head>"
      "<body><!-- rendered 12:00 --><p>Hello <b>world</b></p><title>second</title></body></html>");
  EXPECT_EQ(t.title, "Item 7");
  EXPECT_EQ(t.text.find("color"), std::string::npos);
  EXPECT_EQ(t.text.find("var"), std::string::npos);
  EXPECT_EQ(t.text.find("rendered"), std::string::npos);
  EXPECT_NE(t.text.find("Hello"), std::string::npos);
  EXPECT_NE(t.text.find("world"), std::string::npos);
  EXPECT_EQ(t.text.find('<'), std::string::npos);
}

TEST(PageTextTest, UnclosedMarkupEndsThePage) {
  EXPECT_EQ(page_text("text <a href='x").title, "");
  EXPECT_EQ(page_text("a<script>never closed").text.find("never"), std::string::npos);
  EXPECT_EQ(page_text("<title>open").title, "");
  EXPECT_EQ(page_text("plain").text, "plain");
}

}  // namespace
}  // namespace bloomcrawl
