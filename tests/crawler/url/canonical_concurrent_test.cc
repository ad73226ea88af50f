// canonicalize() from many threads at once: it keeps a per-thread scratch URL, so results must
// be the same as on one thread (and TSan must see no race).
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "crawler/url/canonical.h"

namespace bloomcrawl {
namespace {

TEST(CanonicalConcurrent, ThreadsGetTheSameKeysAsOneThread) {
  std::optional<Url> base = parse_url("https://Example.com/dir/page.html");
  ASSERT_TRUE(base);
  std::vector<std::string> hrefs;
  for (int i = 0; i < 400; ++i) {
    hrefs.push_back("../p" + std::to_string(i) + "/./x%7e?b=" + std::to_string(i % 7) + "&a=1#f");
    hrefs.push_back("HTTP://H" + std::to_string(i % 13) + ".example:80/" + std::to_string(i));
    hrefs.push_back("mailto:u" + std::to_string(i) + "@x");
  }
  CanonicalizeOptions options;
  options.sort_query = true;
  std::vector<std::string> expected;
  for (const std::string& href : hrefs) {
    CanonicalUrl result = canonicalize(href, &*base, options);
    expected.push_back(result.ok() ? result.url : result.error);
  }
  constexpr int kThreads = 4;
  std::vector<std::vector<std::string>> results(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 5; ++round) {
        for (const std::string& href : hrefs) {
          CanonicalUrl result = canonicalize(href, &*base, options);
          if (round == 4) results[t].push_back(result.ok() ? result.url : result.error);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(results[t], expected) << "thread " << t;
}

}  // namespace
}  // namespace bloomcrawl
