// RFC 3986 section 5.4 reference-resolution examples (normal and abnormal), base
// http://a/b/c/d;p?q. Where WHATWG differs from RFC 3986 the WHATWG result is expected and the
// difference is noted: "//g" gets the path "/" and "http:g" is resolved relative to a base of the
// same scheme (RFC 3986's "backward compatible" reading).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "crawler/url/canonical.h"
#include "crawler/url/url.h"

namespace bloomcrawl {
namespace {

const std::vector<std::pair<const char*, const char*>> kNormal = {
    {"g:h", "g:h"},
    {"g", "http://a/b/c/g"},
    {"./g", "http://a/b/c/g"},
    {"g/", "http://a/b/c/g/"},
    {"/g", "http://a/g"},
    {"//g", "http://g/"},  // RFC: http://g
    {"?y", "http://a/b/c/d;p?y"},
    {"g?y", "http://a/b/c/g?y"},
    {"#s", "http://a/b/c/d;p?q#s"},
    {"g#s", "http://a/b/c/g#s"},
    {"g?y#s", "http://a/b/c/g?y#s"},
    {";x", "http://a/b/c/;x"},
    {"g;x", "http://a/b/c/g;x"},
    {"g;x?y#s", "http://a/b/c/g;x?y#s"},
    {"", "http://a/b/c/d;p?q"},
    {".", "http://a/b/c/"},
    {"./", "http://a/b/c/"},
    {"..", "http://a/b/"},
    {"../", "http://a/b/"},
    {"../g", "http://a/b/g"},
    {"../..", "http://a/"},
    {"../../", "http://a/"},
    {"../../g", "http://a/g"},
};

const std::vector<std::pair<const char*, const char*>> kAbnormal = {
    {"../../../g", "http://a/g"},
    {"../../../../g", "http://a/g"},
    {"/./g", "http://a/g"},
    {"/../g", "http://a/g"},
    {"g.", "http://a/b/c/g."},
    {".g", "http://a/b/c/.g"},
    {"g..", "http://a/b/c/g.."},
    {"..g", "http://a/b/c/..g"},
    {"./../g", "http://a/b/g"},
    {"./g/.", "http://a/b/c/g/"},
    {"g/./h", "http://a/b/c/g/h"},
    {"g/../h", "http://a/b/c/h"},
    {"g;x=1/./y", "http://a/b/c/g;x=1/y"},
    {"g;x=1/../y", "http://a/b/c/y"},
    {"g?y/./x", "http://a/b/c/g?y/./x"},
    {"g?y/../x", "http://a/b/c/g?y/../x"},
    {"g#s/./x", "http://a/b/c/g#s/./x"},
    {"g#s/../x", "http://a/b/c/g#s/../x"},
    {"http:g", "http://a/b/c/g"},  // RFC strict parsers give "http:g"
};

void check_resolution(const std::vector<std::pair<const char*, const char*>>& cases) {
  std::optional<Url> base = parse_url("http://a/b/c/d;p?q");
  ASSERT_TRUE(base);
  for (const auto& [reference, expected] : cases) {
    std::optional<Url> url = parse_url(reference, &*base);
    ASSERT_TRUE(url) << reference;
    EXPECT_EQ(url->href(), expected) << reference;
  }
}

TEST(Rfc3986Resolution, NormalExamples) { check_resolution(kNormal); }
TEST(Rfc3986Resolution, AbnormalExamples) { check_resolution(kAbnormal); }

TEST(Rfc3986Resolution, CanonicalFormDropsOnlyTheFragment) {
  std::optional<Url> base = parse_url("http://a/b/c/d;p?q");
  ASSERT_TRUE(base);
  CanonicalizeOptions options;
  EXPECT_EQ(canonicalize("g#s/../x", &*base, options).url, "http://a/b/c/g");
  EXPECT_EQ(canonicalize("#s", &*base, options).url, "http://a/b/c/d;p?q");
  EXPECT_EQ(canonicalize("g?y/../x", &*base, options).url, "http://a/b/c/g?y/../x");
  EXPECT_EQ(canonicalize("g:h", &*base, options).reason, UrlDropReason::kUnsupportedScheme);
}

}  // namespace
}  // namespace bloomcrawl
