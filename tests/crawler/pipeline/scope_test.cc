// Scope against config/README.md, section "scope": each test names the README sentence or row it
// holds the code to.
#include "crawler/pipeline/scope.h"

#include <gtest/gtest.h>

namespace bloomcrawl {
namespace {

// README scope: "With `same_host` off and both lists empty, every host is in scope (a whole-web
// crawl)".
TEST(ScopeReadme, SameHostOffAndBothListsEmptyIsTheWholeWeb) {
  const Scope scope({.same_host = false}, {"seed.example"});
  EXPECT_EQ(scope.check("http://anywhere.test/", "anywhere.test"), ScopeVerdict::kInScope);
  EXPECT_EQ(scope.check("http://127.0.0.9:8080/", "127.0.0.9:8080"), ScopeVerdict::kInScope);
}

// README scope: the whole web only when both lists are empty; a list given limits it.
TEST(ScopeReadme, SameHostOffWithAListIsOnlyTheList) {
  const Scope hosts({.allowed_hosts = {"a.test"}, .same_host = false}, {"seed.example"});
  EXPECT_EQ(hosts.check("http://a.test/", "a.test"), ScopeVerdict::kInScope);
  EXPECT_EQ(hosts.check("http://seed.example/", "seed.example"), ScopeVerdict::kHostNotAllowed);
  const Scope domains({.allowed_domains = {"b.test"}, .same_host = false}, {"seed.example"});
  EXPECT_EQ(domains.check("http://x.b.test/", "x.b.test"), ScopeVerdict::kInScope);
  EXPECT_EQ(domains.check("http://a.test/", "a.test"), ScopeVerdict::kHostNotAllowed);
}

// README scope: same_host on (the default) is the seeds' hosts and no other.
TEST(ScopeReadme, SameHostOnIsTheSeedsHostsOnly) {
  const Scope scope({}, {"seed.example"});
  EXPECT_EQ(scope.check("http://seed.example/a", "seed.example"), ScopeVerdict::kInScope);
  EXPECT_EQ(scope.check("http://other.example/", "other.example"), ScopeVerdict::kHostNotAllowed);
}

// README scope rows include/exclude: include must match when given; exclude is checked after it.
TEST(ScopeReadme, IncludeThenExclude) {
  const Scope scope({.same_host = false, .include = {"/docs/"}, .exclude = {"\\.pdf$"}}, {});
  EXPECT_EQ(scope.check("http://a.test/docs/x.html", "a.test"), ScopeVerdict::kInScope);
  EXPECT_EQ(scope.check("http://a.test/blog/x.html", "a.test"), ScopeVerdict::kNotIncluded);
  EXPECT_EQ(scope.check("http://a.test/docs/x.pdf", "a.test"), ScopeVerdict::kExcluded);
}

// README scope.allowed_hosts: "exact names (case-insensitive, no scheme/port/path)"; canonical
// hosts are lowercase Punycode, so the configured names are compared in that form.
TEST(ScopeReadme, AllowedHostsAndDomainsAreCaseInsensitiveAndPunycoded) {
  const Scope scope({.allowed_hosts = {"LocalHost", "bücher.example"}, .allowed_domains = {"Example.ORG"}}, {});
  EXPECT_EQ(scope.check("http://localhost:8080/", "localhost:8080"), ScopeVerdict::kInScope);
  EXPECT_EQ(scope.check("http://xn--bcher-kva.example/", "xn--bcher-kva.example"), ScopeVerdict::kInScope);
  EXPECT_EQ(scope.check("http://www.example.org/", "www.example.org"), ScopeVerdict::kInScope);
  EXPECT_EQ(scope.check("http://example.net/", "example.net"), ScopeVerdict::kHostNotAllowed);
}

// README scope.same_host: "The seeds' hosts are in scope", by name on any port both ways, as
// allowed_hosts are (a seed on :8080 admits the name on :80, and a seed on :80 the name on :8080).
TEST(ScopeReadme, SameHostIsTheSeedsHostNameOnAnyPort) {
  const Scope scope({}, {"a.test:8080", "b.test"});
  EXPECT_EQ(scope.check("http://a.test/", "a.test"), ScopeVerdict::kInScope);
  EXPECT_EQ(scope.check("http://a.test:9/", "a.test:9"), ScopeVerdict::kInScope);
  EXPECT_EQ(scope.check("http://b.test:8080/", "b.test:8080"), ScopeVerdict::kInScope);
  EXPECT_EQ(scope.check("http://c.test:8080/", "c.test:8080"), ScopeVerdict::kHostNotAllowed);
}

}  // namespace
}  // namespace bloomcrawl
