// The text of an HTML page and its title, for SimHash and the learner's near-identical test
// (docs/content-seen.md): the bytes outside tags, comments, <script> and <style>, each tag a word
// break; entities are left as they are (the same page has the same ones). Not a parser: a page
// that is not HTML gives its bytes back as text. Pure functions.
#pragma once

#include <string>
#include <string_view>

namespace bloomcrawl {

struct PageText {
  std::string text;
  std::string title;  // the first <title>'s text, spaces trimmed
};

PageText page_text(std::string_view html);

}  // namespace bloomcrawl
