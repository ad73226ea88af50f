// Gumbo's parse, with its assertion failures turned into an error instead of an abort.
//
// Debian's libgumbo 0.10.1 is built with assertions, and some pages reach one of them
// (tests/fuzz/corpus/links_fuzz/gumbo-assert-node_qualified_tag_is, found by links_fuzz): an
// abort there would end the whole crawl for one hostile page. parse_html_guarded() catches such a
// failure on its own thread and returns nullptr with `failure` naming the assertion. The parse
// must allocate only from an arena the caller frees (ParseArena): the abandoned parser's memory is
// reclaimed with it. Assertion failures outside a guarded parse still abort, as glibc's do.
#pragma once

#include <string>
#include <string_view>

#include <gumbo.h>

namespace bloomcrawl {

GumboOutput* parse_html_guarded(const GumboOptions& options, std::string_view html, std::string& failure);

}  // namespace bloomcrawl
