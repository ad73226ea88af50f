// Fuzzes parse_url() and canonicalize(). Input: one option byte, then "BASE<TAB>HREF" or "HREF".
// Invariants: no crash; a parsed URL's href() re-parses to the same href; canonicalize() is
// idempotent and its output parses back to itself.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "crawler/url/canonical.h"
#include "crawler/url/url.h"

namespace {

[[noreturn]] void violated(const char* what, std::string_view a, std::string_view b) {
  std::fprintf(stderr, "invariant violated: %s\n  first:  %.*s\n  second: %.*s\n", what, static_cast<int>(a.size()),
               a.data(), static_cast<int>(b.size()), b.data());
  std::abort();
}

void check_href_round_trip(const bloomcrawl::Url& url) {
  std::string href = url.href();
  std::optional<bloomcrawl::Url> again = bloomcrawl::parse_url(href);
  if (!again) violated("href does not re-parse", href, "");
  if (again->href() != href) violated("href re-parses differently", href, again->href());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  bloomcrawl::CanonicalizeOptions options;
  options.sort_query = data[0] & 1;
  options.strip_params = data[0] & 2;
  options.strip_session_ids = data[0] & 4;
  options.lowercase_path = data[0] & 8;
  options.drop_index_pages = data[0] & 16;
  std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);

  std::optional<bloomcrawl::Url> base;
  size_t tab = input.find('\t');
  if (tab != std::string_view::npos) {
    base = bloomcrawl::parse_url(input.substr(0, tab));
    input.remove_prefix(tab + 1);
    if (base) check_href_round_trip(*base);
  }
  const bloomcrawl::Url* base_ptr = base ? &*base : nullptr;

  std::optional<bloomcrawl::Url> url = bloomcrawl::parse_url(input, base_ptr);
  if (url) check_href_round_trip(*url);

  bloomcrawl::CanonicalUrl first = bloomcrawl::canonicalize(input, base_ptr, options);
  if (!first.ok()) return 0;
  bloomcrawl::CanonicalUrl second = bloomcrawl::canonicalize(first.url, nullptr, options);
  if (!second.ok()) violated("canonical URL is rejected", first.url, second.error);
  if (second.url != first.url) violated("canonicalize is not idempotent", first.url, second.url);
  if (second.host != first.host) violated("host key changes", first.host, second.host);
  std::optional<bloomcrawl::Url> back = bloomcrawl::parse_url(first.url);
  if (!back || back->href() != first.url) {
    violated("canonical URL does not parse to itself", first.url, back ? back->href() : "");
  }
  return 0;
}
