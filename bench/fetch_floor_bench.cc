// fetch_floor_bench: the transport floor of bench/openscope_bench.sh. Bare libcurl, set up as the
// crawler's fetcher is (threads x transfers, one multi handle per thread, hosts routed to threads
// by hash), fetches the open web's pages and discards them: no parsing, no frontier, no output.
// Run once as the 3-host crawl sees its site (every connection kept alive) and once as the
// 10,000-host crawl sees its own (each host's robots.txt too, a new connection per request), it
// measures what the many hosts cost the transport alone: the part of the crawler's gap that no
// pipeline work can remove.
//
//   fetch_floor_bench --port P --hosts H --pages N [--robots] [--fresh] [--max-host-connections C]
//                     [--threads 2] [--transfers 64]
//
// Prints one JSON line: requests, wall seconds, CPU seconds (user + system), failures.
#include <curl/curl.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Options {
  int port = 0;
  size_t hosts = 3;
  size_t pages = 1;
  bool robots = false;
  bool fresh = false;
  unsigned threads = 2;
  long transfers = 64;
  long max_host_connections = 0;  // 0: libcurl's default, no limit
};

size_t discard(char*, size_t size, size_t count, void*) { return size * count; }

// Fetches `urls` with up to `transfers` at once on one multi handle.
uint64_t fetch_all(const std::vector<std::string>& urls, const Options& options, curl_slist* resolve) {
  CURLM* multi = curl_multi_init();
  curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, 4 * options.transfers);
  curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, options.max_host_connections);
  std::vector<CURL*> idle;
  for (long i = 0; i < options.transfers; ++i) {
    CURL* easy = curl_easy_init();
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &discard);
    curl_easy_setopt(easy, CURLOPT_RESOLVE, resolve);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_FORBID_REUSE, options.fresh ? 1L : 0L);
    idle.push_back(easy);
  }
  uint64_t failures = 0;
  size_t next = 0;
  int running = 0;
  while (next < urls.size() || running > 0) {
    while (next < urls.size() && !idle.empty()) {
      CURL* easy = idle.back();
      idle.pop_back();
      curl_easy_setopt(easy, CURLOPT_URL, urls[next++].c_str());
      curl_multi_add_handle(multi, easy);
    }
    curl_multi_perform(multi, &running);
    int queued = 0;
    while (CURLMsg* message = curl_multi_info_read(multi, &queued)) {
      if (message->msg != CURLMSG_DONE) continue;
      if (message->data.result != CURLE_OK) ++failures;
      CURL* easy = message->easy_handle;
      curl_multi_remove_handle(multi, easy);
      idle.push_back(easy);
    }
    curl_multi_poll(multi, nullptr, 0, 100, nullptr);
  }
  for (CURL* easy : idle) curl_easy_cleanup(easy);
  curl_multi_cleanup(multi);
  return failures;
}

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

int run(int argc, char** argv) {
  Options options;
  CLI::App app{"bare libcurl fetch of the open web: the transport floor of bench/openscope_bench.sh"};
  app.add_option("--port", options.port, "the open web's port")->required();
  app.add_option("--hosts", options.hosts, "host names h0.test ...")->capture_default_str();
  app.add_option("--pages", options.pages, "pages per host")->capture_default_str();
  app.add_flag("--robots", options.robots, "fetch each host's robots.txt first");
  app.add_flag("--fresh", options.fresh, "a new connection for every request");
  app.add_option("--threads", options.threads, "threads, one multi handle each")->capture_default_str();
  app.add_option("--transfers", options.transfers, "transfers per thread")->capture_default_str();
  app.add_option("--max-host-connections", options.max_host_connections,
                 "connections per host at once, the rest queued in libcurl (0: no limit)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  curl_global_init(CURL_GLOBAL_DEFAULT);
  const std::string port = std::to_string(options.port);
  curl_slist* resolve = curl_slist_append(nullptr, ("*:" + port + ":127.0.0.1").c_str());
  // Hosts to threads as the fetcher routes them; within a thread, host by host in page order.
  std::vector<std::vector<std::string>> urls(options.threads);
  uint64_t requests = 0;
  for (size_t h = 0; h < options.hosts; ++h) {
    const std::string host = "h" + std::to_string(h) + ".test";
    std::vector<std::string>& mine = urls[std::hash<std::string>{}(host) % options.threads];
    const std::string origin = "http://" + host + ":" + port;
    if (options.robots) mine.push_back(origin + "/robots.txt");
    for (size_t p = 0; p < options.pages; ++p) mine.push_back(origin + "/p" + std::to_string(p) + ".html");
    requests += options.pages + (options.robots ? 1 : 0);
  }
  const double cpu_before = cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  std::atomic<uint64_t> failures{0};
  std::vector<std::thread> threads;
  threads.reserve(urls.size());
  for (const std::vector<std::string>& list : urls)
    threads.emplace_back([&, list] { failures += fetch_all(list, options, resolve); });
  for (std::thread& t : threads) t.join();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu = cpu_seconds() - cpu_before;
  const uint64_t pages = uint64_t(options.hosts) * options.pages;
  std::printf("{\"requests\": %llu, \"pages\": %llu, \"wall_s\": %.3f, \"cpu_s\": %.3f, \"failures\": %llu}\n",
              static_cast<unsigned long long>(requests), static_cast<unsigned long long>(pages), wall, cpu,
              static_cast<unsigned long long>(failures.load()));
  curl_slist_free_all(resolve);
  curl_global_cleanup();
  return failures.load() == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fetch_floor_bench: %s\n", e.what());
    return 2;
  }
}
