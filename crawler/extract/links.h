// Link extraction from HTML pages (Gumbo) and the robots directives a page carries.
//
// extract_links() parses at most `max_bytes` of the page with an HTML5 parser and returns every
// link the crawler may follow, in document order, each with its kind, source element and raw
// attribute value (entities decoded, HTML whitespace trimmed, NOT resolved: resolve against
// `base_href` (if any) or the page URL with the URL module). It throws nothing but
// std::bad_alloc, whatever the input, and never recurses over the tree; hostile pages cost bounded time and memory:
// bytes past `max_bytes` and elements nested deeper than kMaxNestingDepth are not parsed (`truncated`), links past
// `max_links` are dropped (`links_capped`). A page the parser itself fails on (a Gumbo assertion,
// see gumbo_guard.h) yields no links and a `parse_error`.
//
// extract_page_links() does the same for a fetched page's bytes in whatever encoding it is
// in: it determines the encoding as browsers do (encoding_sniff.h) from the bytes and the
// Content-Type header, decodes the page to UTF-8 (page_decode.h) and reports the encoding,
// which is the encoding override to resolve the links with (url.h): a link's query is encoded
// in it. extract_links() takes UTF-8 (invalid bytes read as U+FFFD) and reports UTF-8.
//
// Robots directives are reported, not applied: Link::nofollow is the link's own rel=nofollow;
// meta_nofollow/meta_noindex come from <meta name=robots|<agent>>; the crawler combines them
// with the X-Robots-Tag header (robots_meta.h). See docs/links.md for the decisions.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crawler/extract/parse_budget.h"
#include "crawler/url/encoding.h"

namespace bloomcrawl {

enum class LinkKind {
  kAnchor,       // <a href>, also SVG <a href|xlink:href>
  kArea,         // <area href>
  kFrame,        // <frame src>
  kIframe,       // <iframe src>
  kMetaRefresh,  // <meta http-equiv=refresh content="5; url=...">
  kStylesheet,   // <link rel=stylesheet href> (including "alternate stylesheet")
  kAlternate,    // <link rel=alternate href> (translations, feeds)
  kCanonical,    // <link rel=canonical href>
  kLinkOther,    // any other <link href> (icon, next, prev, preload, ...)
  kImage,        // <img src>, only with include_images
  kScript,       // <script src>, only with include_scripts
};

// "a", "area", "frame", "iframe", "meta-refresh", "stylesheet", "alternate", "canonical",
// "link", "img", "script".
const char* link_kind_name(LinkKind kind);

struct Link {
  LinkKind kind;
  std::string href;       // raw attribute value, entities decoded, ASCII whitespace trimmed
  std::string element;    // lower-case tag name of the source element, e.g. "a", "link", "meta"
  bool nofollow = false;  // the element's own rel contains "nofollow"
};

struct LinkExtractOptions {
  bool include_images = false;
  bool include_scripts = false;
  size_t max_bytes = 1 << 20;               // bytes of the page parsed; the rest sets `truncated`
  size_t max_links = 20000;                 // links kept; more sets `links_capped`
  std::string robots_agent = "bloomcrawl";  // <meta name=AGENT> applies like name=robots
  // Shared by the parse threads of a crawl (parse_budget.h); null: each parse only capped.
  std::shared_ptr<ParseBudget> budget;
};

struct ExtractedLinks {
  std::vector<Link> links;
  std::optional<std::string> base_href;  // first <base href>, trimmed, unresolved
  bool meta_nofollow = false;
  bool meta_noindex = false;
  bool truncated = false;               // part of the page was not parsed (byte or nesting cap)
  bool links_capped = false;            // more than max_links links were found
  size_t links_over_cap = 0;            // how many more: found, not kept
  std::string parse_error;              // set when the HTML parser failed on the page: no links, no directives
  Encoding encoding = Encoding::kUtf8;  // the page's encoding: the links' encoding override
};

// Elements opened deeper than this (as estimated by a pre-scan that mirrors the HTML tree
// builder) end the parsed part of the page: Gumbo's tree builder is quadratic in nesting depth.
inline constexpr size_t kMaxNestingDepth = 512;

ExtractedLinks extract_links(std::string_view html, const LinkExtractOptions& options);
// `body` in any encoding; `content_type` is the response's Content-Type header value ("" if none).
ExtractedLinks extract_page_links(std::string_view body, std::string_view content_type,
                                  const LinkExtractOptions& options);

}  // namespace bloomcrawl
