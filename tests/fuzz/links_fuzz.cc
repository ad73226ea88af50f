// libFuzzer target for extract_links() and the robots-header parser: no crash, no hang, and
// the result keeps its invariants for any bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "crawler/extract/links.h"
#include "crawler/extract/links_depth_guard.h"
#include "crawler/extract/robots_meta.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  bloomcrawl::LinkExtractOptions options;
  // Small caps so that the fuzzer reaches them; the first byte varies the options.
  uint8_t knobs = size > 0 ? data[0] : 0;
  options.include_images = knobs & 1;
  options.include_scripts = knobs & 2;
  options.max_links = (knobs >> 2) & 15;
  options.max_bytes = (knobs & 64) ? size / 2 : size;

  bloomcrawl::ExtractedLinks got = bloomcrawl::extract_links(input, options);
  check(got.links.size() <= options.max_links);
  check(got.truncated ==
        (options.max_bytes < size ||
         bloomcrawl::nesting_safe_prefix(input.substr(0, options.max_bytes), bloomcrawl::kMaxNestingDepth) <
             std::min(size, options.max_bytes)));
  for (const bloomcrawl::Link& link : got.links) {
    check(!link.element.empty());
    check(link.kind != bloomcrawl::LinkKind::kImage || options.include_images);
    check(link.kind != bloomcrawl::LinkKind::kScript || options.include_scripts);
    // Entity decoding can grow text (e.g. "&nGt;" to 6 bytes) but only by a small factor. The
    // bound is per link: the HTML parser legitimately clones an <a> (reconstructing active
    // formatting elements), so one href can come out several times.
    check(link.href.size() <= 4 * size + 16);
  }
  if (got.base_href) check(got.base_href->size() <= 4 * size);

  bloomcrawl::RobotsDirectives directives = bloomcrawl::parse_x_robots_tag(input, "bloomcrawl");
  (void)directives;
  return 0;
}
