#include "crawler/extract/links.h"

#include <vector>

#include <gumbo.h>

#include "crawler/extract/encoding_sniff.h"
#include "crawler/extract/gumbo_guard.h"
#include "crawler/extract/links_depth_guard.h"
#include "crawler/extract/links_meta_refresh.h"
#include "crawler/extract/links_parse_arena.h"
#include "crawler/extract/links_text.h"
#include "crawler/extract/page_decode.h"
#include "crawler/extract/robots_meta.h"

namespace bloomcrawl {
namespace {

using links_text::equals_ignore_ascii_case;
using links_text::trim_html_space;

// Gumbo allocates 13-16 bytes per input byte on link-dense pages (measured with the arena on a
// 60 KB page like the benchmark's); sizing the first block from it usually needs one block.
constexpr size_t kArenaBytesPerInputByte = 16;

std::string_view attribute(const GumboElement& element, const char* name) {
  const GumboAttribute* attr = gumbo_get_attribute(&element.attributes, name);
  return attr == nullptr ? std::string_view() : std::string_view(attr->value);
}

bool has_attribute(const GumboElement& element, const char* name) {
  return gumbo_get_attribute(&element.attributes, name) != nullptr;
}

bool rel_has(std::string_view rel, std::string_view token) {
  return links_text::any_token(rel, /*split_at_commas=*/false,
                               [&](std::string_view t) { return equals_ignore_ascii_case(t, token); });
}

// <link rel> lists several relations; the kind is the one that matters most to a crawler.
LinkKind link_element_kind(std::string_view rel) {
  if (rel_has(rel, "canonical")) return LinkKind::kCanonical;
  if (rel_has(rel, "stylesheet")) return LinkKind::kStylesheet;
  if (rel_has(rel, "alternate")) return LinkKind::kAlternate;
  return LinkKind::kLinkOther;
}

class LinkCollector {
 public:
  LinkCollector(const LinkExtractOptions& options, ExtractedLinks& result) : options_(options), result_(result) {}

  void visit(const GumboElement& element) {
    if (element.tag_namespace != GUMBO_NAMESPACE_HTML) {
      // SVG <a href|xlink:href> is a hyperlink too; other foreign elements carry none.
      if (element.tag == GUMBO_TAG_A && element.tag_namespace == GUMBO_NAMESPACE_SVG) {
        visit_hyperlink(element, LinkKind::kAnchor);
      }
      return;
    }
    switch (element.tag) {
      case GUMBO_TAG_A: visit_hyperlink(element, LinkKind::kAnchor); break;
      case GUMBO_TAG_AREA: visit_hyperlink(element, LinkKind::kArea); break;
      case GUMBO_TAG_LINK:
        if (has_attribute(element, "href")) {
          std::string_view rel = attribute(element, "rel");
          add(link_element_kind(rel), element, attribute(element, "href"), rel_has(rel, "nofollow"));
        }
        break;
      case GUMBO_TAG_FRAME: visit_source(element, LinkKind::kFrame); break;
      case GUMBO_TAG_IFRAME: visit_source(element, LinkKind::kIframe); break;
      case GUMBO_TAG_IMG:
        if (options_.include_images) visit_source(element, LinkKind::kImage);
        break;
      case GUMBO_TAG_SCRIPT:
        if (options_.include_scripts) visit_source(element, LinkKind::kScript);
        break;
      case GUMBO_TAG_META: visit_meta(element); break;
      case GUMBO_TAG_BASE:
        // The document's base URL is the first <base> that has an href (HTML), wherever it is.
        if (!result_.base_href && has_attribute(element, "href")) {
          result_.base_href = std::string(trim_html_space(attribute(element, "href")));
        }
        break;
      default: break;
    }
  }

 private:
  void visit_hyperlink(const GumboElement& element, LinkKind kind) {
    if (!has_attribute(element, "href")) return;  // a placeholder anchor, not a link
    add(kind, element, attribute(element, "href"), rel_has(attribute(element, "rel"), "nofollow"));
  }

  void visit_source(const GumboElement& element, LinkKind kind) {
    if (has_attribute(element, "src")) add(kind, element, attribute(element, "src"), false);
  }

  void visit_meta(const GumboElement& element) {
    std::string_view content = attribute(element, "content");
    if (equals_ignore_ascii_case(trim_html_space(attribute(element, "http-equiv")), "refresh")) {
      if (auto url = meta_refresh_url(content)) add(LinkKind::kMetaRefresh, element, *url, false);
      return;
    }
    std::string_view name = trim_html_space(attribute(element, "name"));
    if (equals_ignore_ascii_case(name, "robots") ||
        (!options_.robots_agent.empty() && equals_ignore_ascii_case(name, options_.robots_agent))) {
      RobotsDirectives directives;
      add_robots_meta_directives(content, directives);
      result_.meta_nofollow |= directives.nofollow;
      result_.meta_noindex |= directives.noindex;
    }
  }

  void add(LinkKind kind, const GumboElement& element, std::string_view raw, bool nofollow) {
    if (result_.links.size() >= options_.max_links) {
      result_.links_capped = true;
      ++result_.links_over_cap;
      return;
    }
    result_.links.push_back(
        Link{kind, std::string(trim_html_space(raw)), gumbo_normalized_tagname(element.tag), nofollow});
  }

  const LinkExtractOptions& options_;
  ExtractedLinks& result_;
};

// Visits the elements of the tree in document order with an explicit stack, so that nesting
// depth costs heap, not call stack. Template contents are inert (never rendered or followed by
// browsers) and are skipped.
void walk_elements(const GumboNode* document, LinkCollector& collector) {
  // Reused across pages: the walk itself allocates nothing once the stack has grown.
  thread_local std::vector<const GumboNode*> pending;
  pending.clear();
  pending.push_back(document);
  while (!pending.empty()) {
    const GumboNode* node = pending.back();
    pending.pop_back();
    const GumboVector* children;
    if (node->type == GUMBO_NODE_DOCUMENT) {
      children = &node->v.document.children;
    } else {
      collector.visit(node->v.element);
      children = &node->v.element.children;
    }
    for (unsigned i = children->length; i-- > 0;) {
      const auto* child = static_cast<const GumboNode*>(children->data[i]);
      if (child->type == GUMBO_NODE_ELEMENT) pending.push_back(child);
    }
  }
}

}  // namespace

const char* link_kind_name(LinkKind kind) {
  switch (kind) {
    case LinkKind::kAnchor: return "a";
    case LinkKind::kArea: return "area";
    case LinkKind::kFrame: return "frame";
    case LinkKind::kIframe: return "iframe";
    case LinkKind::kMetaRefresh: return "meta-refresh";
    case LinkKind::kStylesheet: return "stylesheet";
    case LinkKind::kAlternate: return "alternate";
    case LinkKind::kCanonical: return "canonical";
    case LinkKind::kLinkOther: return "link";
    case LinkKind::kImage: return "img";
    case LinkKind::kScript: return "script";
  }
  return "unknown";
}

namespace {

// The part of extraction after the byte cap, on UTF-8.
void extract_from_utf8(std::string_view html, const LinkExtractOptions& options, ExtractedLinks& result) {
  size_t parsable = nesting_safe_prefix(html, kMaxNestingDepth);
  if (parsable < html.size()) {
    html = html.substr(0, parsable);
    result.truncated = true;
  }
  const ParseBudget::Lease lease = options.budget ? options.budget->take(html.size()) : ParseBudget::Lease(nullptr, 0);
  ParseArena arena(html.size() * kArenaBytesPerInputByte);
  GumboOptions gumbo_options = arena.gumbo_options();
  GumboOutput* output = parse_html_guarded(gumbo_options, html, result.parse_error);
  if (output == nullptr) return;  // the arena takes the abandoned parse with it
  LinkCollector collector(options, result);
  walk_elements(output->document, collector);
  // No gumbo_destroy_output(): the tree lives in `arena`, freed at once on return.
}

// The first `max_bytes` of `input`; sets `truncated` if that is not all of it.
std::string_view cap_bytes(std::string_view input, const LinkExtractOptions& options, ExtractedLinks& result) {
  if (input.size() <= options.max_bytes) return input;
  result.truncated = true;
  return input.substr(0, options.max_bytes);
}

}  // namespace

ExtractedLinks extract_links(std::string_view html, const LinkExtractOptions& options) {
  ExtractedLinks result;
  extract_from_utf8(cap_bytes(html, options, result), options, result);
  return result;
}

ExtractedLinks extract_page_links(std::string_view body, std::string_view content_type,
                                  const LinkExtractOptions& options) {
  ExtractedLinks result;
  body = cap_bytes(body, options, result);
  const SniffedEncoding sniffed = sniff_encoding(body, content_type);
  result.encoding = sniffed.encoding;
  body.remove_prefix(sniffed.bom_length);
  if (sniffed.encoding == Encoding::kUtf8) {
    extract_from_utf8(body, options, result);  // Gumbo reads invalid UTF-8 as U+FFFD itself
  } else {
    extract_from_utf8(decode_to_utf8(body, sniffed.encoding), options, result);
  }
  return result;
}

}  // namespace bloomcrawl
