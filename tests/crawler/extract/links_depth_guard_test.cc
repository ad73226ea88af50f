// The nesting pre-scan: hostile nesting is cut before Gumbo sees it, and ordinary sloppy HTML
// (unclosed li/p/td, misnested inline tags, big inline SVGs, scripts full of tags) is not.
#include "crawler/extract/links_depth_guard.h"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <gumbo.h>

#include "crawler/extract/links.h"
#include "tests/crawler/extract/links_test_util.h"

namespace bloomcrawl {
namespace {

using links_test::repeat;

// Depth of the deepest element Gumbo builds from `html`, computed without recursion.
size_t gumbo_tree_depth(std::string_view html) {
  GumboOptions options = kGumboDefaultOptions;
  options.max_errors = 0;
  GumboOutput* output = gumbo_parse_with_options(&options, html.data(), html.size());
  size_t deepest = 0;
  std::vector<std::pair<const GumboNode*, size_t>> pending = {{output->root, 1}};
  while (!pending.empty()) {
    auto [node, depth] = pending.back();
    pending.pop_back();
    deepest = std::max(deepest, depth);
    const GumboVector& children = node->v.element.children;
    for (unsigned i = 0; i < children.length; ++i) {
      const auto* child = static_cast<const GumboNode*>(children.data[i]);
      if (child->type == GUMBO_NODE_ELEMENT || child->type == GUMBO_NODE_TEMPLATE) {
        pending.emplace_back(child, depth + 1);
      }
    }
  }
  // The guarded prefix is shallow enough for gumbo_destroy_output's recursion.
  gumbo_destroy_output(&options, output);
  return deepest;
}

struct HostileCase {
  const char* name;
  std::string html;
};

TEST(DepthGuardTest, HostileNestingIsCutToABoundedTree) {
  const size_t kTimes = 20000;
  std::vector<HostileCase> cases = {
      {"nested divs", repeat("<div>", kTimes)},
      {"nested spans", repeat("<span>", kTimes)},
      {"div self-closing is ignored in HTML", repeat("<div/>", kTimes)},
      {"end tag blocked by a special element", repeat("<span><div></span>", kTimes)},
      {"li inside ul inside li", repeat("<li><ul>", kTimes)},
      {"option does not close through span", repeat("<option><span>", kTimes)},
      {"cells outside tables are ignored", repeat("<td><div>", kTimes)},
      {"nested tables", repeat("<table><tr><td>", kTimes)},
      {"comment ended by --!>", "<!-- x --!>" + repeat("<div>", kTimes)},
      {"html inside foreignObject", "<svg><foreignObject>" + repeat("<div/>", kTimes)},
      {"foreign elements nest even if void in html", "<svg>" + repeat("<link>", kTimes)},
      {"foreign integration point round trip", repeat("<div><svg><desc></div>", kTimes)},
      {"reopened formatting elements", repeat("<div><b id=1><i id=2><u id=3></div>x", kTimes)},
      {"distinct formatting elements", repeat("<p><font size=1>x</p>", 2) +
                                           [&] {
                                             std::string s;
                                             for (size_t i = 0; i < kTimes; ++i) {
                                               s += "<div><font id=" + std::to_string(i) + ">x</div>";
                                             }
                                             return s;
                                           }()},
  };
  for (const HostileCase& c : cases) {
    size_t prefix = nesting_safe_prefix(c.html, kMaxNestingDepth);
    EXPECT_LT(prefix, c.html.size()) << c.name;
    // Approximate tracking may undercount by a small factor (implied tbody/tr, foster
    // parenting), never by the unbounded amount the pattern would build.
    EXPECT_LE(gumbo_tree_depth(std::string_view(c.html).substr(0, prefix)), 4 * kMaxNestingDepth) << c.name;
    EXPECT_GE(gumbo_tree_depth(std::string_view(c.html).substr(0, prefix)), kMaxNestingDepth / 2)
        << c.name << ": cut far earlier than needed";
  }
}

TEST(DepthGuardTest, SloppyButShallowPagesAreNotCut) {
  const size_t kTimes = 3000;  // each pattern repeated far past kMaxNestingDepth
  std::vector<HostileCase> cases = {
      {"unclosed list items", "<ul>" + repeat("<li>item <a href=x>x</a>", kTimes) + "</ul>"},
      {"unclosed paragraphs", repeat("<p>text <b>bold</b>", kTimes)},
      {"paragraphs closed by blocks", repeat("<p>text<div>block</div>", kTimes)},
      {"unclosed spans inside divs", repeat("<div><span>text</div>", kTimes)},
      {"unclosed definition items", "<dl>" + repeat("<dt>t<dd>d", kTimes) + "</dl>"},
      {"rows and cells without end tags", "<table>" + repeat("<tr><td>a<td>b<th>c", kTimes) + "</table>"},
      {"tables closing their unclosed cells", repeat("<table><tbody><tr><td>a<td><span>b</table>", kTimes)},
      {"many options", "<select>" + repeat("<option>o", kTimes) + "</select>"},
      {"inline svg with self-closed paths", "<svg>" + repeat("<path d='M0 0'/>", kTimes) + "</svg>"},
      {"tags inside scripts and comments", repeat("<script>document.write('<div>')</script><!-- <div> -->", kTimes)},
      {"tags inside textarea and title",
       "<title>" + repeat("<div>", kTimes) + "</title><textarea>" + repeat("<div>", kTimes) + "</textarea>"},
      {"misnested formatting in cells", "<table><tr>" + repeat("<td><p><b>x</p>y</td>", kTimes) + "</table>"},
      {"anchors never closed", repeat("<a href=/x>x", kTimes)},
      {"stray end tags", repeat("</div></span></td></table>", kTimes) + repeat("<div></div>", kTimes)},
      {"ruby", repeat("<ruby>a<rb>b<rt>c<rp>d</ruby>", kTimes)},
      {"headings never closed", repeat("<h2>title<p>text", kTimes)},
      {"plaintext swallows the rest", "<plaintext>" + repeat("<div></plaintext>", kTimes)},
      {"quoted > in attributes", repeat("<div title='a>b'><img alt=\"<div>\"></div>", kTimes)},
  };
  for (const HostileCase& c : cases) {
    EXPECT_EQ(nesting_safe_prefix(c.html, kMaxNestingDepth), c.html.size()) << c.name;
  }
}

TEST(DepthGuardTest, CutsAtTheStartTagThatWouldExceed) {
  std::string html = "<html><body>" + repeat("<div>", 10) + "<p>";
  size_t first_div = html.find("<div>");
  EXPECT_EQ(nesting_safe_prefix(html, 4), first_div + size_t{4} * 5);
  EXPECT_EQ(nesting_safe_prefix(html, 11), html.size());
  EXPECT_EQ(nesting_safe_prefix("", 4), 0u);
  EXPECT_EQ(nesting_safe_prefix("<", 4), 1u);
  EXPECT_EQ(nesting_safe_prefix("<div", 0), 4u);  // an unfinished tag is never parsed anyway
}

}  // namespace
}  // namespace bloomcrawl
