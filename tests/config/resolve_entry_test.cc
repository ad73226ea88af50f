// fetch.resolve: entries in curl's --resolve form are taken as written; anything else is a
// ConfigError naming the entry and the form expected.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config.h"

namespace bloomcrawl {
namespace {

// Appends, not `"literal" + std::string`: GCC 12 warns falsely (-Wrestrict) on that at -O3.
std::string with_resolve(const std::string& entries) {
  return std::string(R"({"seeds": {"urls": ["http://h0.test:8080/"]}, "fetch": {"resolve": [)")
      .append(entries)
      .append("]}}");
}

TEST(ResolveEntry, CurlResolveFormsAreTaken) {
  const CrawlConfig c =
      parse_config(with_resolve(R"("*:8080:127.0.0.1", "www.example.test:80:[::1]", "a.test:443:::1")"), "cfg.json");
  EXPECT_EQ(c.fetch.resolve,
            (std::vector<std::string>{"*:8080:127.0.0.1", "www.example.test:80:[::1]", "a.test:443:::1"}));
}

TEST(ResolveEntry, MalformedEntriesAreNamed) {
  for (const char* bad : {"127.0.0.1", "*:8080", ":8080:127.0.0.1", "*:0:127.0.0.1", "*:65536:127.0.0.1",
                          "*:http:127.0.0.1", "*:80:localhost", "*:80:10.0.0.0/8", "bad host:80:127.0.0.1"}) {
    try {
      parse_config(with_resolve(std::string("\"").append(bad).append("\"")), "cfg.json");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.json_path(), "/fetch/resolve/0") << bad;
      EXPECT_THAT(e.what(), ::testing::HasSubstr("expected HOST:PORT:ADDRESS")) << bad;
    }
  }
}

}  // namespace
}  // namespace bloomcrawl
