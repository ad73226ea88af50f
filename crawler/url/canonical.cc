#include "crawler/url/canonical.h"

#include "crawler/url/canonical_parts.h"

namespace bloomcrawl {
namespace {

using namespace canonical_internal;

CanonicalUrl dropped(UrlDropReason reason, std::string error) {
  CanonicalUrl result;
  result.reason = reason;
  result.error = std::move(error);
  return result;
}

std::string too_long_message(size_t length, size_t max_length) {
  return "URL is " + std::to_string(length) + " bytes, over the limit of " + std::to_string(max_length);
}

}  // namespace

const char* url_drop_reason_name(UrlDropReason reason) {
  switch (reason) {
    case UrlDropReason::kNone: return "none";
    case UrlDropReason::kInvalid: return "invalid";
    case UrlDropReason::kUnsupportedScheme: return "unsupported_scheme";
    case UrlDropReason::kTooLong: return "too_long";
  }
  return "unknown";
}

CanonicalUrl canonicalize(const Url& url, const CanonicalizeOptions& options) {
  if (url.scheme != "http" && url.scheme != "https") {
    return dropped(UrlDropReason::kUnsupportedScheme,
                   "scheme '" + url.scheme + "' is not crawled (only http and https)");
  }
  CanonicalUrl result;
  result.host = url.origin_host_port();
  std::string& out = result.url;
  out.reserve(url.scheme.size() + 3 + result.host.size() + url.path.size() + (url.query ? url.query->size() + 1 : 0));
  out += url.scheme;
  out += "://";
  out += result.host;

  size_t path_start = out.size();
  if (url.path.empty()) {
    out.push_back('/');
  } else if (!options.lowercase_path && url.path.find('%') == std::string::npos) {
    out += url.path;  // the common case: nothing to normalize
  } else {
    append_normalized_escapes(out, url.path, options.lowercase_path);
  }
  if (options.strip_session_ids || options.drop_index_pages) {
    std::string path = out.substr(path_start);
    if (options.strip_session_ids) {
      strip_path_session_ids(path);
      resolve_dot_segments(path);
    }
    if (options.drop_index_pages) drop_index_page(path);
    out.resize(path_start);
    out += path;
  }

  if (url.query) {
    size_t query_start = out.size() + 1;
    out.push_back('?');
    append_normalized_escapes(out, *url.query, false);
    bool rewrites = options.sort_query || options.strip_params || options.strip_session_ids;
    if (rewrites) {
      std::string query = out.substr(query_start);
      QueryRewrite rewrite;
      rewrite.sort = options.sort_query;
      rewrite.strip_names = options.strip_params ? &options.strip_param_names : nullptr;
      rewrite.strip_session_ids = options.strip_session_ids;
      bool keep = rewrite_query(query, rewrite);
      out.resize(query_start - 1);
      if (keep) {
        out.push_back('?');
        out += query;
      }
    }
  }
  if (out.size() > options.max_length) {
    return dropped(UrlDropReason::kTooLong, too_long_message(out.size(), options.max_length));
  }
  return result;
}

CanonicalUrl canonicalize(std::string_view href, const Url* base, const CanonicalizeOptions& options,
                          Encoding encoding) {
  if (href.size() > options.max_length) {
    return dropped(UrlDropReason::kTooLong, too_long_message(href.size(), options.max_length));
  }
  // One scratch URL per thread keeps its buffers, so parsing allocates nothing in the steady
  // state.
  thread_local Url scratch;
  std::string error;
  if (!parse_url_into(href, base, scratch, &error, encoding)) {
    return dropped(UrlDropReason::kInvalid, std::move(error));
  }
  return canonicalize(scratch, options);
}

}  // namespace bloomcrawl
