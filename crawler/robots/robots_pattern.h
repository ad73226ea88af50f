// Matching of robots.txt path patterns (RFC 9309 section 2.2.3), exactly as Google's reference
// matcher does it: a pattern is anchored at the start of the path, '*' matches any run of
// octets, '$' anchors the end only as the pattern's last character (elsewhere it is literal),
// and octets are compared as they are, case-sensitively (normalize patterns first with
// normalize_robots_pattern; paths are used as given, as the reference does).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace bloomcrawl {

// The part of a URL that robots.txt rules are matched against: path, params and query, without
// scheme, authority and fragment; "/" when there is none. Accepts a full URL
// ("http://h/a?b#c" -> "/a?b"), a scheme-relative one ("//h/a" -> "/a"), a path ("/a?b") or a
// bare host ("h/a" -> "/a"), with the reference's exact rules for odd input.
std::string robots_match_path(std::string_view url);

// Worst case O(|path| * |pattern|) time, O(|path|) space: no backtracking blow-up on hostile
// patterns such as "/*a*a*a*a*b". `scratch` is reused between calls to avoid allocating.
bool robots_pattern_matches(std::string_view path, std::string_view pattern, std::vector<std::size_t>& scratch);

}  // namespace bloomcrawl
