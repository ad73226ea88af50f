#include "crawler/extract/links_depth_guard.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "crawler/extract/links_text.h"

namespace bloomcrawl {
namespace {

using links_text::is_html_space;
using links_text::to_ascii_lower;

constexpr uint64_t kFnvOffset = 14695981039346656037ull;
constexpr uint64_t kFnvPrime = 1099511628211ull;

// Tag names are compared by a hash of their lower-cased bytes: the scan never copies a name.
constexpr uint64_t name_hash(std::string_view name) {
  uint64_t hash = kFnvOffset;
  for (char c : name) hash = (hash ^ static_cast<unsigned char>(to_ascii_lower(c))) * kFnvPrime;
  return hash;
}

enum TagFlag : uint32_t {
  kVoid = 1u << 0,              // never has children (br, img, meta, ...)
  kRawText = 1u << 1,           // content is text up to </name> (script, style, textarea, ...)
  kSpecial = 1u << 2,           // HTML "special" category: stops most implied-end-tag searches
  kScopeBoundary = 1u << 3,     // "has an element in scope" stops here
  kIgnored = 1u << 4,           // html/head/body/frameset: never nest
  kForeignRoot = 1u << 5,       // svg, math: children are foreign content
  kIntegrationPoint = 1u << 6,  // foreignObject, desc, mi, ...: children are HTML again
  kTablePart = 1u << 7,         // tbody/thead/tfoot/tr/td/th/caption/colgroup: only inside tables
  kFormatting = 1u << 8,        // reopened by the tree builder after an implied close
  kMarker = 1u << 9,            // a marker in the list of active formatting elements
  kTable = 1u << 10,
  kBreakoutVoid = 1u << 11,     // void even inside foreign content (it breaks out of it)
  kClosesParagraph = 1u << 12,  // block start tags close an open <p> first
};

// How a start tag closes open elements before it opens (HTML "in body" insertion mode).
enum class Closes : uint8_t {
  kNothing,
  kSameUntilSpecial,  // p, a, nobr, button: an open one, unless a special element intervenes
  kListItem,          // li closes li; dd/dt close dd/dt (through address, div, p)
  kDefinition,
  kTopOption,  // option/optgroup/ruby parts close only the current element
  kTopOptgroup,
  kTopRuby,
  kTopHeading,  // h1..h6 close a heading that is the current element
  kCell,        // td/th close the open cell, tr the row, tbody.. the section (in its table)
  kRow,
  kSection,
};

struct TagInfo {
  uint32_t flags = 0;
  Closes closes = Closes::kNothing;
  uint8_t formatting_index = 0;
};

constexpr size_t kFormattingCount = 14;
constexpr size_t kTypicalDepth = 32;
constexpr uint64_t kPlaintextHash = name_hash("plaintext");

const std::unordered_map<uint64_t, TagInfo>& tag_table() {
  static const std::unordered_map<uint64_t, TagInfo> table = [] {
    std::unordered_map<uint64_t, TagInfo> t;
    auto add = [&](std::initializer_list<std::string_view> names, uint32_t flags, Closes closes = Closes::kNothing) {
      for (std::string_view name : names) {
        TagInfo& info = t[name_hash(name)];
        info.flags |= flags;
        if (closes != Closes::kNothing) info.closes = closes;
      }
    };
    add({"area", "base", "basefont", "bgsound", "col", "frame", "input", "keygen", "link", "param", "source", "track",
         "wbr"},
        kVoid | kSpecial);
    add({"br", "embed", "hr", "img", "meta"}, kVoid | kBreakoutVoid | kSpecial);
    add({"image"}, kVoid | kBreakoutVoid);
    add({"script", "style", "xmp", "iframe", "noembed", "noframes", "textarea", "title", "plaintext"},
        kRawText | kSpecial);
    add({"html", "head", "body", "frameset"}, kIgnored | kSpecial);
    add({"noscript", "select"}, kSpecial);
    add({"address", "article",  "aside",      "blockquote", "center", "details", "dialog",  "dir",     "div",
         "dl",      "fieldset", "figcaption", "figure",     "footer", "form",    "header",  "hgroup",  "listing",
         "main",    "menu",     "nav",        "ol",         "pre",    "search",  "section", "summary", "ul"},
        kSpecial | kClosesParagraph);
    add({"h1", "h2", "h3", "h4", "h5", "h6"}, kSpecial | kClosesParagraph, Closes::kTopHeading);
    add({"p"}, kSpecial, Closes::kSameUntilSpecial);
    add({"button"}, kSpecial, Closes::kSameUntilSpecial);
    add({"li"}, kSpecial | kClosesParagraph, Closes::kListItem);
    add({"dd", "dt"}, kSpecial | kClosesParagraph, Closes::kDefinition);
    add({"option"}, 0, Closes::kTopOption);
    add({"optgroup"}, 0, Closes::kTopOptgroup);
    add({"rb", "rp", "rt", "rtc"}, 0, Closes::kTopRuby);
    add({"applet", "marquee", "object"}, kSpecial | kScopeBoundary | kMarker);
    add({"template"}, kSpecial | kScopeBoundary | kMarker);
    add({"table"}, kSpecial | kScopeBoundary | kTable);
    add({"caption"}, kSpecial | kScopeBoundary | kMarker | kTablePart);
    add({"colgroup"}, kSpecial | kTablePart);
    add({"td", "th"}, kSpecial | kScopeBoundary | kMarker | kTablePart, Closes::kCell);
    add({"tr"}, kSpecial | kTablePart, Closes::kRow);
    add({"tbody", "thead", "tfoot"}, kSpecial | kTablePart, Closes::kSection);
    add({"svg", "math"}, kForeignRoot);
    add({"foreignobject", "desc", "mi", "mo", "mn", "ms", "mtext", "annotation-xml"},
        kSpecial | kScopeBoundary | kIntegrationPoint);
    // "title" is raw text in HTML but an integration point inside <svg>.
    t[name_hash("title")].flags |= kScopeBoundary | kIntegrationPoint;
    uint8_t index = 0;
    for (std::string_view name :
         {"a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u"}) {
      TagInfo& info = t[name_hash(name)];
      info.flags |= kFormatting;
      info.formatting_index = index++;
    }
    t[name_hash("a")].closes = Closes::kSameUntilSpecial;
    t[name_hash("nobr")].closes = Closes::kSameUntilSpecial;
    return t;
  }();
  return table;
}

TagInfo tag_info(uint64_t hash) {
  const auto& table = tag_table();
  auto it = table.find(hash);
  return it == table.end() ? TagInfo{} : it->second;
}

// One lexed tag: where it ends and what it is.
struct Tag {
  std::string_view name;
  size_t end;  // offset just past '>', or the input size if the input ends inside the tag
  bool self_closing = false;
  bool complete = false;  // false: the input ended inside it (Gumbo drops such a tag)
};

// Lexes the attributes of a tag whose name ends at `pos`, as the HTML tokenizer does, only to
// find the '>' that ends the tag (quoted values may contain '>').
void lex_attributes(std::string_view html, size_t pos, Tag& tag) {
  const size_t n = html.size();
  while (pos < n) {
    char c = html[pos];
    if (is_html_space(c)) {
      ++pos;
    } else if (c == '>') {
      tag.end = pos + 1;
      tag.complete = true;
      return;
    } else if (c == '/') {
      ++pos;
      if (pos < n && html[pos] == '>') {
        tag.self_closing = true;
        tag.end = pos + 1;
        tag.complete = true;
        return;
      }
    } else {
      // Attribute name (a leading '=' belongs to it), then an optional value.
      ++pos;
      while (pos < n && !is_html_space(html[pos]) && html[pos] != '/' && html[pos] != '>' && html[pos] != '=') {
        ++pos;
      }
      while (pos < n && is_html_space(html[pos])) ++pos;
      if (pos < n && html[pos] == '=') {
        ++pos;
        while (pos < n && is_html_space(html[pos])) ++pos;
        if (pos < n && (html[pos] == '"' || html[pos] == '\'')) {
          size_t close = html.find(html[pos], pos + 1);
          pos = close == std::string_view::npos ? n : close + 1;
        } else {
          while (pos < n && !is_html_space(html[pos]) && html[pos] != '>') ++pos;
        }
      }
    }
  }
  tag.end = n;
}

Tag lex_tag(std::string_view html, size_t name_start) {
  size_t pos = name_start;
  while (pos < html.size() && !is_html_space(html[pos]) && html[pos] != '/' && html[pos] != '>') {
    ++pos;
  }
  Tag tag;
  tag.name = html.substr(name_start, pos - name_start);
  lex_attributes(html, pos, tag);
  return tag;
}

bool is_ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Just past the first '>' at or after `pos`, or the input size if there is none.
size_t past_next_gt(std::string_view html, size_t pos) {
  size_t close = html.find('>', pos);
  return close == std::string_view::npos ? html.size() : close + 1;
}

// End of a comment that starts at `open` ("<!--"): "-->", "--!>", or the abrupt "<!-->" and
// "<!--->"; the input size if it never ends.
size_t comment_end(std::string_view html, size_t open) {
  size_t pos = open + 4;
  if (html.compare(pos, 1, ">") == 0) return pos + 1;
  if (html.compare(pos, 2, "->") == 0) return pos + 2;
  while (true) {
    size_t dashes = html.find("--", pos);
    if (dashes == std::string_view::npos) return html.size();
    size_t after = dashes + 2;
    while (after < html.size() && html[after] == '-') ++after;
    if (after < html.size() && html[after] == '>') return after + 1;
    if (html.compare(after, 2, "!>") == 0) return after + 2;
    pos = after;
  }
}

// End of the raw text of element `name` starting at `pos`: the start of "</name" followed by
// a space, '/' or '>' (case-insensitive), or the input size.
size_t raw_text_end(std::string_view html, size_t pos, std::string_view name) {
  while (true) {
    size_t close = html.find("</", pos);
    if (close == std::string_view::npos) return html.size();
    size_t after = close + 2 + name.size();
    if (after > html.size()) return html.size();
    bool same = links_text::equals_ignore_ascii_case(html.substr(close + 2, name.size()), name);
    if (same && (after == html.size() || is_html_space(html[after]) || html[after] == '/' || html[after] == '>')) {
      return close;
    }
    pos = close + 2;
  }
}

// The approximate stack of open elements, plus the formatting elements that the tree builder
// would reopen (they count towards depth because Gumbo pushes them again).
class OpenElements {
 public:
  // Room for a typical page's nesting, not for max_depth: a block that large per page is a large
  // malloc, which consolidates the allocator's fast bins each time (it showed in crawl profiles).
  OpenElements() { stack_.reserve(kTypicalDepth); }

  size_t depth() const { return stack_.size() + reopened_total_; }
  bool in_foreign_content() const { return !stack_.empty() && stack_.back().foreign_children; }
  bool in_table() const { return open_tables_ > 0; }

  void push(uint64_t hash, const TagInfo& info) {
    bool foreign = in_foreign_content();
    if (info.flags & kForeignRoot) {
      foreign = true;
    } else if (foreign && (info.flags & kIntegrationPoint)) {
      foreign = false;
    }
    if (info.flags & kMarker) marker_snapshots_.push_back(reopened_);
    if (info.flags & kTable) ++open_tables_;
    stack_.push_back(Entry{hash, info, foreign});
  }

  // Closes what a start tag implicitly closes before it opens.
  void close_for_start_tag(uint64_t hash, const TagInfo& info) {
    auto special = [](const Entry& e) { return (e.info.flags & kSpecial) != 0; };
    if (info.flags & kClosesParagraph) close_matching([](const Entry& e) { return e.hash == kP; }, special);
    switch (info.closes) {
      case Closes::kNothing: break;
      case Closes::kSameUntilSpecial: close_matching([&](const Entry& e) { return e.hash == hash; }, special); break;
      case Closes::kListItem: close_matching([](const Entry& e) { return e.hash == kLi; }, stops_list_item); break;
      case Closes::kDefinition:
        close_matching([](const Entry& e) { return e.hash == kDd || e.hash == kDt; }, stops_list_item);
        break;
      case Closes::kTopOption: close_top_if([](uint64_t h) { return h == kOption; }); break;
      case Closes::kTopOptgroup:
        close_top_if([](uint64_t h) { return h == kOption; });
        close_top_if([](uint64_t h) { return h == kOptgroup; });
        break;
      case Closes::kTopRuby:
        while (close_top_if([](uint64_t h) { return h == kRb || h == kRp || h == kRt || h == kRtc; })) {
        }
        break;
      case Closes::kTopHeading: close_top_if(is_heading); break;
      case Closes::kCell:
        close_matching([](const Entry& e) { return e.hash == kTd || e.hash == kTh; }, stops_table_part);
        break;
      case Closes::kRow: close_matching([](const Entry& e) { return e.hash == kTr; }, stops_table_part); break;
      case Closes::kSection:
        close_matching([](const Entry& e) { return e.hash == kTbody || e.hash == kThead || e.hash == kTfoot; },
                       stops_table_part);
        break;
    }
  }

  void close_for_end_tag(uint64_t hash, const TagInfo& info) {
    auto same = [&](const Entry& e) { return e.hash == hash; };
    if (info.flags & (kTablePart | kTable)) {
      close_matching(same, stops_table_part);
    } else if (is_heading(hash)) {
      close_matching([](const Entry& e) { return is_heading(e.hash); }, stops_in_scope);
    } else if (hash == kLi) {
      close_matching(same, [](const Entry& e) { return stops_in_scope(e) || e.hash == kOl || e.hash == kUl; });
    } else if (hash == kP) {
      close_matching(same, [](const Entry& e) { return stops_in_scope(e) || e.hash == kButton; });
    } else if (info.flags & kSpecial) {
      close_matching(same, stops_in_scope);
    } else if (!close_matching(same, [](const Entry& e) { return (e.info.flags & kSpecial) != 0; }) &&
               (info.flags & kFormatting)) {
      // Not open: the end tag removes it from the formatting elements to reopen, if there.
      uint32_t& reopened = reopened_[info.formatting_index];
      if (reopened > 0) {
        --reopened;
        --reopened_total_;
      }
    }
  }

 private:
  struct Entry {
    uint64_t hash;
    TagInfo info;
    bool foreign_children;
  };

  static constexpr uint64_t kLi = name_hash("li"), kDd = name_hash("dd"), kDt = name_hash("dt"),
                            kOption = name_hash("option"), kOptgroup = name_hash("optgroup"), kRb = name_hash("rb"),
                            kRp = name_hash("rp"), kRt = name_hash("rt"), kRtc = name_hash("rtc"),
                            kTd = name_hash("td"), kTh = name_hash("th"), kTr = name_hash("tr"),
                            kTbody = name_hash("tbody"), kThead = name_hash("thead"), kTfoot = name_hash("tfoot"),
                            kOl = name_hash("ol"), kUl = name_hash("ul"), kP = name_hash("p"),
                            kButton = name_hash("button"), kAddress = name_hash("address"), kDiv = name_hash("div"),
                            kTemplate = name_hash("template");

  static bool is_heading(uint64_t hash) {
    static constexpr std::array<uint64_t, 6> kHeadings = {name_hash("h1"), name_hash("h2"), name_hash("h3"),
                                                          name_hash("h4"), name_hash("h5"), name_hash("h6")};
    return std::ranges::find(kHeadings, hash) != kHeadings.end();
  }
  static bool stops_list_item(const Entry& e) {
    return (e.info.flags & kSpecial) && e.hash != kAddress && e.hash != kDiv && e.hash != kP;
  }
  // "In table scope": only a table or template bounds the search for a cell, row or section.
  static bool stops_table_part(const Entry& e) { return (e.info.flags & kTable) || e.hash == kTemplate; }
  static bool stops_in_scope(const Entry& e) { return (e.info.flags & kScopeBoundary) != 0; }

  // Searches down from the current element for one that `matches`, giving up at one that
  // `stops` the search; pops through the match. Returns whether it found one.
  template <typename Matches, typename Stops>
  bool close_matching(Matches matches, Stops stops) {
    for (size_t i = stack_.size(); i-- > 0;) {
      if (matches(stack_[i])) {
        pop_to(i);
        return true;
      }
      if (stops(stack_[i])) return false;
    }
    return false;
  }

  template <typename Matches>
  bool close_top_if(Matches matches) {
    if (stack_.empty() || !matches(stack_.back().hash)) return false;
    pop_to(stack_.size() - 1);
    return true;
  }

  // Pops the elements above `index` (formatting ones among them will be reopened) and the
  // element at `index` itself (closed by name, so not reopened).
  void pop_to(size_t index) {
    while (stack_.size() > index) {
      const Entry& e = stack_.back();
      bool implied = stack_.size() - 1 > index;
      if (implied && (e.info.flags & kFormatting)) {
        ++reopened_[e.info.formatting_index];
        ++reopened_total_;
      }
      if (e.info.flags & kTable) --open_tables_;
      if (e.info.flags & kMarker) {
        // Closing a marker element forgets the formatting elements opened inside it.
        reopened_ = marker_snapshots_.back();
        marker_snapshots_.pop_back();
        reopened_total_ = 0;
        for (uint32_t count : reopened_) reopened_total_ += count;
      }
      stack_.pop_back();
    }
  }

  std::vector<Entry> stack_;
  std::array<uint32_t, kFormattingCount> reopened_{};
  size_t reopened_total_ = 0;
  std::vector<std::array<uint32_t, kFormattingCount>> marker_snapshots_;
  size_t open_tables_ = 0;
};

// Where the scan resumes after markup that opens no element: a comment, a CDATA section (only in
// foreign content; elsewhere it is a bogus comment), a doctype, a processing instruction or a
// bogus comment. `html[lt]` is '<' and `html[lt + 1]` is '!' or '?'.
size_t markup_declaration_end(std::string_view html, size_t lt, bool in_foreign_content) {
  if (html.compare(lt, 4, "<!--") == 0) return comment_end(html, lt);
  if (in_foreign_content && html.compare(lt, 9, "<![CDATA[") == 0) {
    size_t close = html.find("]]>", lt + 9);
    return close == std::string_view::npos ? html.size() : close + 3;
  }
  return past_next_gt(html, lt + 1);
}

// Lexes the end tag (or "</>", or a bogus comment) at `lt` and applies it to `open`. Returns
// where the scan resumes.
size_t apply_end_tag(std::string_view html, size_t lt, OpenElements& open) {
  size_t name_start = lt + 2;
  if (name_start >= html.size() || !is_ascii_alpha(html[name_start])) return past_next_gt(html, lt + 1);
  Tag tag = lex_tag(html, name_start);
  uint64_t hash = name_hash(tag.name);
  if (tag.complete) open.close_for_end_tag(hash, tag_info(hash));
  return tag.end;
}

constexpr size_t kTooDeep = std::string_view::npos;

// Lexes the start tag at `lt` and applies it to `open`. Returns where the scan resumes (the end of
// the input for a tag cut by it, which Gumbo drops, and for <plaintext>, whose text is the rest of
// the page), or kTooDeep if the element would open deeper than `max_depth`.
size_t apply_start_tag(std::string_view html, size_t lt, size_t max_depth, OpenElements& open) {
  Tag tag = lex_tag(html, lt + 1);
  if (!tag.complete) return html.size();
  uint64_t hash = name_hash(tag.name);
  TagInfo info = tag_info(hash);
  if (info.flags & kIgnored) return tag.end;
  if (open.in_foreign_content()) {
    if ((info.flags & kBreakoutVoid) || tag.self_closing) return tag.end;
  } else {
    if (info.flags & kVoid) return tag.end;
    if ((info.flags & kTablePart) && !open.in_table()) return tag.end;  // ignored outside tables
    if (info.flags & kRawText) {
      return hash == kPlaintextHash ? html.size() : raw_text_end(html, tag.end, tag.name);
    }
    open.close_for_start_tag(hash, info);
  }
  if (open.depth() >= max_depth) return kTooDeep;
  open.push(hash, info);
  return tag.end;
}

}  // namespace

size_t nesting_safe_prefix(std::string_view html, size_t max_depth) {
  OpenElements open;
  const size_t n = html.size();
  size_t pos = 0;
  while (pos < n) {
    const void* found = std::memchr(html.data() + pos, '<', n - pos);
    if (found == nullptr) break;
    size_t lt = static_cast<const char*>(found) - html.data();
    size_t next = lt + 1;
    if (next >= n) break;
    char c = html[next];
    if (c == '!' || c == '?') {
      pos = markup_declaration_end(html, lt, open.in_foreign_content());
    } else if (c == '/') {
      pos = apply_end_tag(html, lt, open);
    } else if (is_ascii_alpha(c)) {
      pos = apply_start_tag(html, lt, max_depth, open);
      if (pos == kTooDeep) return lt;
    } else {
      pos = next;  // a '<' in text
    }
  }
  return n;
}

}  // namespace bloomcrawl
