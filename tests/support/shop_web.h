// ShopWeb: the shop site (shop_site.h) served on 127.0.0.1, every host name "shop<i>.test"
// answered by the request's Host header (a crawler reaches them through fetch.resolve,
// resolve_entry()), with a log of what was fetched: per group, the fetches and the distinct content
// pages they were, and the pages no request fetched. For the content-seen crawl tests and
// bench/content_seen_bench.sh (docs/testweb.md, "The shop web").
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/shop_site.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace bloomcrawl::testweb {

struct ShopWebOptions {
  size_t hosts = 3;
  uint32_t items = 1000;  // items (and products) per host
  uint16_t port = 0;      // 0: an ephemeral port
  size_t threads = 32;
};

struct ShopGroupLog {
  uint64_t distinct_pages = 0;  // in the site, all hosts
  uint64_t fetched_pages = 0;   // distinct pages fetched at least once
  uint64_t fetches = 0;         // requests answered with one of them
};

struct ShopWebLog {
  ShopGroupLog identical;            // renders byte-identical
  ShopGroupLog per_render;           // renders differ
  ShopGroupLog sometimes;            // behind a parameter that changes some of them
  uint64_t other_requests = 0;       // home pages, robots.txt, 404s
  std::vector<std::string> missing;  // "shop<i>.test <key>": pages never fetched
};
nlohmann::json to_json(const ShopWebLog& log);

class ShopWeb {
 public:
  explicit ShopWeb(ShopWebOptions options);
  ~ShopWeb();
  ShopWeb(const ShopWeb&) = delete;
  ShopWeb& operator=(const ShopWeb&) = delete;

  // Listens on 127.0.0.1 (throws std::runtime_error if it cannot) and serves until stop().
  void start();
  void stop();

  uint16_t port() const { return port_; }
  std::string seed_url() const;  // shop0.test's home
  std::string resolve_entry() const;
  std::vector<std::string> host_names() const;
  ShopWebLog log() const;

 private:
  ShopWebOptions options_;
  ShopSite site_;
  uint16_t port_ = 0;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;

  mutable std::mutex mu_;
  std::map<std::string, uint64_t> fetches_;  // "shop<i>.test <key>" -> requests
  uint64_t other_requests_ = 0;
};

}  // namespace bloomcrawl::testweb
