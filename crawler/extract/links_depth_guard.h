// Bounds the element nesting depth a page can make Gumbo build. Gumbo's tree builder scans the
// stack of open elements for many start tags ("is a <p> in button scope?"), so N nested <div>s
// cost O(N^2): 100k of them take ~30 s. Before parsing, a light scan of the tags (no tree, no
// allocation beyond a stack of name hashes) tracks the stack of open elements approximately the
// way the HTML tree builder does — implied end tags of li/dd/dt/p/option/table parts, end tags
// that close unclosed children, raw text, comments, void and self-closing foreign elements — and
// erring towards a deeper estimate where exact tracking would need the full algorithm.
#pragma once

#include <cstddef>
#include <string_view>

namespace bloomcrawl {

// Length of the longest prefix of `html` in which no element opens deeper than `max_depth`:
// html.size() when the whole page is within bounds, else the offset of the first start tag
// that would exceed it.
size_t nesting_safe_prefix(std::string_view html, size_t max_depth);

}  // namespace bloomcrawl
