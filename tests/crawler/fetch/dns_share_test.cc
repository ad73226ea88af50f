// DnsShare: easy handles on different threads, each with a private connection and DNS cache of its
// own otherwise, find what another handle put into the shared DNS cache.
#include "crawler/fetch/dns_share.h"

#include <curl/curl.h>
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "tests/support/fetch_loopback_server.h"

namespace bloomcrawl {
namespace {

constexpr const char* kName = "bloomcrawl-shared-name.invalid";

size_t discard(char*, size_t size, size_t count, void*) { return size * count; }

// curl_easy_perform of http://kName:port/ on a thread of its own; `resolve` puts kName -> 127.0.0.1
// into the handle's DNS cache first (CURLOPT_RESOLVE), `share` (may be null) is attached.
CURLcode fetch_by_name(int port, const DnsShare* share, bool resolve) {
  CURLcode code = CURLE_FAILED_INIT;
  std::thread([&] {
    CURL* easy = curl_easy_init();
    const std::string authority = std::string(kName) + ":" + std::to_string(port);
    const std::string entry = authority + ":127.0.0.1";
    curl_slist* resolves = resolve ? curl_slist_append(nullptr, entry.c_str()) : nullptr;
    if (share != nullptr) share->attach(easy);
    curl_easy_setopt(easy, CURLOPT_RESOLVE, resolves);
    curl_easy_setopt(easy, CURLOPT_URL, ("http://" + authority + "/").c_str());
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &discard);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, 10000L);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    code = curl_easy_perform(easy);
    curl_easy_cleanup(easy);
    curl_slist_free_all(resolves);
  }).join();
  return code;
}

TEST(DnsShareTest, AnAddressCachedByOneThreadServesAnother) {
  testing::LoopbackHttpServer server;
  server.server().Get("/",
                      [](const httplib::Request&, httplib::Response& res) { res.set_content("ok", "text/plain"); });
  server.start();
  const std::string base = server.url("");
  const int port = std::stoi(base.substr(base.rfind(':') + 1));

  const DnsShare share(std::chrono::seconds(60));
  ASSERT_EQ(fetch_by_name(port, &share, /*resolve=*/true), CURLE_OK);
  EXPECT_EQ(fetch_by_name(port, &share, /*resolve=*/false), CURLE_OK) << "the shared cache answers";
  EXPECT_EQ(fetch_by_name(port, nullptr, /*resolve=*/false), CURLE_COULDNT_RESOLVE_HOST)
      << "without the share the name does not resolve";
}

}  // namespace
}  // namespace bloomcrawl
