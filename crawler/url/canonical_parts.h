// Building blocks of canonicalize() for the path and the query (internal to crawler/canonical*).
// Each appends a canonical component to `out`; each is idempotent on its own output, which is
// what makes canonicalize() idempotent.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace bloomcrawl::canonical_internal {

// Appends `component` with escapes of unreserved characters decoded and the hex digits of the
// other escapes uppercased; with `lowercase`, ASCII letters outside escapes are lowercased.
void append_normalized_escapes(std::string& out, std::string_view component, bool lowercase);

// True if `name` matches one of `patterns` (ASCII case-insensitive; a trailing '*' makes the
// pattern a prefix).
bool name_matches(std::string_view name, const std::vector<std::string>& patterns);

// Session-id names recognized in path parameters (";jsessionid=") and query parameters.
const std::vector<std::string>& session_id_names();

// Removes ";name=value" path parameters whose name is a session id, in place.
void strip_path_session_ids(std::string& path);
// Resolves "." and ".." segments (as the URL parser does) that removing path parameters
// uncovered: "/a/..;jsessionid=1/b" becomes "/a/../b", which must be "/b".
void resolve_dot_segments(std::string& path);
// Turns a last segment such as "index.html" into the directory ("/a/index.html" -> "/a/").
void drop_index_page(std::string& path);

struct QueryRewrite {
  bool sort = false;
  const std::vector<std::string>* strip_names = nullptr;  // null: strip none
  bool strip_session_ids = false;
};
// Rewrites a normalized query in place; returns false when it ends up empty.
bool rewrite_query(std::string& query, const QueryRewrite& rewrite);

}  // namespace bloomcrawl::canonical_internal
