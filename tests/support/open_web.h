// OpenWeb: a test web of many host names on one loopback server, for open-scope crawls (issue 15).
// Every name "h<i>.test" (i < hosts) is answered by one HTTP server on 127.0.0.1, by the request's
// Host header; a crawler reaches them all through fetch.resolve (resolve_entry(): "*:PORT:127.0.0.1").
// Host i serves /p0.html ... /p<P-1>.html and a robots.txt that disallows /private/. Each page links
// to the next page of its host, to a /private/ page (never to be fetched) and to `cross_links`
// pages of other hosts chosen by a seeded generator; /p0.html of host i also links /p0.html of
// hosts 2i+1 and 2i+2, so every host is reachable from the seed, h0's /p0.html. Ground truth: every
// /p<j>.html of every host, fetched once.
//
// The server-side log a test asserts on: fetches per URL, requests for /private/, and robots.txt
// requests being answered at once (now and at peak) with the page requests that arrived while
// one was. `robots_delay` holds each robots.txt answer that long, as a slow robots.txt would.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace httplib {
class Server;
}  // namespace httplib

namespace bloomcrawl::testweb {

struct OpenWebOptions {
  size_t hosts = 100;
  size_t pages_per_host = 3;
  size_t cross_links = 3;  // links per page to pages of other hosts
  uint64_t seed = 1;
  uint16_t port = 0;  // 0: an ephemeral port
  std::chrono::milliseconds robots_delay{0};
  size_t threads = 64;  // server threads: at least the crawler's connections, so none waits
};

struct OpenWebLog {
  std::map<std::string, uint32_t> fetches;  // "http://h<i>.test:PORT/p<j>.html" -> times fetched
  uint64_t page_requests = 0;
  uint64_t robots_requests = 0;
  uint64_t private_requests = 0;     // disallowed by robots.txt
  uint32_t robots_peak = 0;          // robots.txt requests being answered at once, at most
  uint64_t pages_during_robots = 0;  // page requests that arrived while a robots.txt one was answered
};

class OpenWeb {
 public:
  explicit OpenWeb(OpenWebOptions options);
  ~OpenWeb();
  OpenWeb(const OpenWeb&) = delete;
  OpenWeb& operator=(const OpenWeb&) = delete;

  // Listens on 127.0.0.1 (throws std::runtime_error if it cannot) and serves until stop().
  void start();
  void stop();

  uint16_t port() const { return port_; }
  static std::string host(size_t i);  // "h<i>.test"
  std::string page_url(size_t host, size_t page) const;
  std::string seed_url() const { return page_url(0, 0); }
  std::string resolve_entry() const;              // for fetch.resolve
  std::vector<std::string> ground_truth() const;  // sorted
  // The HTML of host i's page j (what the server answers).
  std::string page_html(size_t i, size_t j) const;

  OpenWebLog log() const;
  uint32_t robots_in_progress() const { return robots_in_progress_.load(); }

 private:
  OpenWebOptions options_;
  uint16_t port_ = 0;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;

  mutable std::mutex mu_;
  OpenWebLog log_;
  std::atomic<uint32_t> robots_in_progress_{0};
};

}  // namespace bloomcrawl::testweb
