// `bloomcrawl-testweb`: runs the local test web (test_web.h) until SIGINT/SIGTERM, for
// scripts/demo.sh, benchmarks and external runs; or, with `generate`, writes a static copy of a
// site for nginx (site_generator.h); or, with `open`, serves the many-host open web (open_web.h)
// for bench/openscope_bench.sh; or, with `shop`, the shop web (shop_web.h) for
// bench/content_seen_bench.sh. Files it writes and control endpoints: docs/testweb.md.
#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>

#include "tests/support/open_web.h"
#include "tests/support/shop_web.h"
#include "tests/support/site_generator.h"
#include "tests/support/test_web.h"
#include "tests/support/test_web_files.h"

namespace {

using bloomcrawl::testweb::TestWeb;
using bloomcrawl::testweb::TestWebOptions;
using bloomcrawl::testweb::write_file_atomically;

struct ServeFiles {
  std::string ground_truth;
  std::string log;
  std::string requests;
  std::string ready;
};

// Blocks the stop signals before any thread exists so every server thread inherits the mask and
// the main thread alone receives them through sigwait (no async-signal-unsafe handler).
sigset_t block_stop_signals() {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  return stop_signals;
}

int serve(TestWebOptions options, const ServeFiles& files) {
  sigset_t stop_signals = block_stop_signals();

  TestWeb web(std::move(options));
  web.start();
  if (!files.ground_truth.empty())
    write_file_atomically(files.ground_truth, web.ground_truth_json(web.options().max_depth_for_truth).dump(2) + "\n");
  if (!files.ready.empty()) write_file_atomically(files.ready, std::to_string(web.port()) + "\n");
  // Last of the start-up output: a parent reading stderr can rely on the files above existing.
  std::cerr << "bloomcrawl-testweb: serving " << web.options().hosts.size() << " hosts on port " << web.port()
            << ", seed URL " << web.seed_url() << std::endl;

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  web.stop();
  const auto summary = web.summary();
  if (!files.log.empty()) write_file_atomically(files.log, to_json(summary).dump(2) + "\n");
  if (!files.requests.empty()) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& request : web.requests()) all.push_back(to_json(request, web.started_at()));
    write_file_atomically(files.requests, all.dump(1) + "\n");
  }
  std::cerr << "bloomcrawl-testweb: stopped by signal " << signal_number << ": " << summary.requests << " requests, "
            << summary.duplicate_fetches << " duplicate fetches, " << summary.robots_violations
            << " robots violations, max " << summary.max_in_flight_per_host << " in flight per host\n";
  return 0;
}

struct OpenFiles {
  std::string log;      // summary JSON at exit: requests, duplicates, missing pages, robots.txt peak
  std::string samples;  // "ms robots_txt_in_progress" every sample_ms, while serving
  std::string ready;
  unsigned sample_ms = 100;
};

// Samples the robots.txt requests being answered until `done`, one "ms count" line each.
void sample_robots(const bloomcrawl::testweb::OpenWeb& web, const OpenFiles& files, const std::atomic<bool>& done) {
  std::ofstream out(files.samples);
  const auto start = std::chrono::steady_clock::now();
  while (!done.load()) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    out << ms.count() << ' ' << web.robots_in_progress() << '\n';
    std::this_thread::sleep_for(std::chrono::milliseconds(files.sample_ms));  // a sampling period
  }
}

int serve_open(const bloomcrawl::testweb::OpenWebOptions& options, const OpenFiles& files) {
  sigset_t stop_signals = block_stop_signals();
  bloomcrawl::testweb::OpenWeb web(options);
  web.start();
  std::atomic<bool> done{false};
  std::thread sampler;
  if (!files.samples.empty()) sampler = std::thread([&] { sample_robots(web, files, done); });
  if (!files.ready.empty()) write_file_atomically(files.ready, std::to_string(web.port()) + "\n");
  std::cerr << "bloomcrawl-testweb: serving " << options.hosts << " open-web hosts on port " << web.port()
            << ", seed URL " << web.seed_url() << ", resolve " << web.resolve_entry() << std::endl;
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  web.stop();
  done.store(true);
  if (sampler.joinable()) sampler.join();
  const bloomcrawl::testweb::OpenWebLog log = web.log();
  uint64_t duplicates = 0;
  uint64_t missing = 0;
  for (const std::string& url : web.ground_truth()) {
    auto it = log.fetches.find(url);
    if (it == log.fetches.end()) {
      ++missing;
    } else {
      duplicates += it->second - 1;
    }
  }
  const nlohmann::json summary = {{"hosts", options.hosts},
                                  {"ground_truth_pages", options.hosts * options.pages_per_host},
                                  {"page_requests", log.page_requests},
                                  {"robots_requests", log.robots_requests},
                                  {"private_requests", log.private_requests},
                                  {"duplicate_fetches", duplicates},
                                  {"missing_pages", missing},
                                  {"robots_peak", log.robots_peak},
                                  {"pages_during_robots", log.pages_during_robots}};
  if (!files.log.empty()) write_file_atomically(files.log, summary.dump(2) + "\n");
  std::cerr << "bloomcrawl-testweb: stopped by signal " << signal_number << ": " << summary.dump() << "\n";
  return 0;
}

int serve_shop(const bloomcrawl::testweb::ShopWebOptions& options, const std::string& ready, const std::string& log) {
  sigset_t stop_signals = block_stop_signals();
  bloomcrawl::testweb::ShopWeb web(options);
  web.start();
  if (!ready.empty()) write_file_atomically(ready, std::to_string(web.port()) + "\n");
  std::cerr << "bloomcrawl-testweb: serving " << options.hosts << " shop hosts on port " << web.port() << ", seed URL "
            << web.seed_url() << ", resolve " << web.resolve_entry() << std::endl;
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  web.stop();
  const nlohmann::json summary = to_json(web.log());
  if (!log.empty()) write_file_atomically(log, summary.dump(2) + "\n");
  std::cerr << "bloomcrawl-testweb: stopped by signal " << signal_number << "\n";
  return 0;
}

std::vector<std::string> split_hosts(const std::string& list) {
  std::vector<std::string> hosts;
  std::stringstream in(list);
  for (std::string host; std::getline(in, host, ',');) {
    if (!host.empty()) hosts.push_back(host);
  }
  return hosts;
}

int run(int argc, char** argv) {
  CLI::App app{"bloomcrawl-testweb: the local multi-host test web with ground truth and a fetch log"};
  TestWebOptions options;
  ServeFiles files;
  std::string hosts = "127.0.0.2,127.0.0.3,127.0.0.4";
  uint64_t delay_ms = 0;
  bool no_robots = false;
  bool no_trap = false;
  app.add_option("--hosts", hosts, "comma-separated loopback addresses, one site each")->capture_default_str();
  app.add_option("--port", options.port, "port for every host (0: pick a free one)")->capture_default_str();
  app.add_option("--pages", options.pages_per_host, "content pages per host")
      ->capture_default_str()
      ->check(CLI::Range(2u, 10000000u));
  app.add_option("--seed", options.seed, "site generator seed")->capture_default_str();
  app.add_option("--delay-ms", delay_ms, "server latency added to every response")->capture_default_str();
  app.add_option("--threads", options.threads_per_host, "server threads per host")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  uint64_t keep_alive_s = 1;
  app.add_option("--keep-alive-s", keep_alive_s, "idle keep-alive timeout of the server")
      ->capture_default_str()
      ->check(CLI::Range(0, 3600));
  app.add_flag("--no-robots", no_robots, "serve no robots.txt anywhere");
  app.add_flag("--no-trap", no_trap, "leave out the infinite /trap/ spaces");
  app.add_option("--ground-truth", files.ground_truth, "write the ground truth JSON here once listening");
  app.add_option("--truth-depth", options.max_depth_for_truth, "max depth of the ground truth file and endpoint")
      ->capture_default_str()
      ->check(CLI::Range(0u, bloomcrawl::testweb::kMaxTrapDepth));
  app.add_option("--log", files.log, "write the fetch-log summary JSON here at exit");
  app.add_option("--requests", files.requests, "write every logged request as JSON here at exit");
  app.add_option("--ready-file", files.ready, "write the port here once listening");

  bloomcrawl::testweb::StaticSiteOptions static_options;
  CLI::App* generate = app.add_subcommand("generate", "write a static site (for nginx) and its ground truth");
  generate->add_option("--out", static_options.directory, "output directory (one subdirectory per host)")->required();
  generate->add_option("--hosts", hosts, "comma-separated hosts the site links between")->capture_default_str();
  generate->add_option("--port", static_options.port, "port the site will be served on")
      ->required()
      ->check(CLI::Range(1, 65535));
  generate->add_option("--pages", static_options.pages_per_host, "content pages per host")
      ->capture_default_str()
      ->check(CLI::Range(2u, 10000000u));
  generate->add_option("--seed", static_options.seed, "site generator seed")->capture_default_str();
  generate->add_option("--ground-truth", static_options.ground_truth, "ground truth file (one URL a line)")->required();

  bloomcrawl::testweb::OpenWebOptions open_options;
  OpenFiles open_files;
  uint64_t robots_delay_ms = 0;
  CLI::App* open = app.add_subcommand("open", "serve many host names h<i>.test on 127.0.0.1 (open_web.h)");
  open->add_option("--hosts", open_options.hosts, "host names")->capture_default_str()->check(CLI::Range(1, 10000000));
  open->add_option("--pages", open_options.pages_per_host, "pages per host")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000000));
  open->add_option("--cross-links", open_options.cross_links, "links per page to pages of other hosts")
      ->capture_default_str();
  open->add_option("--seed", open_options.seed, "link generator seed")->capture_default_str();
  open->add_option("--port", open_options.port, "port (0: pick a free one)")->capture_default_str();
  open->add_option("--threads", open_options.threads, "server threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  open->add_option("--robots-delay-ms", robots_delay_ms, "latency of every robots.txt answer")->capture_default_str();
  open->add_option("--log", open_files.log, "write the summary JSON here at exit");
  open->add_option("--samples", open_files.samples, "write robots.txt requests in progress over time here");
  open->add_option("--sample-ms", open_files.sample_ms, "sampling period")->capture_default_str();
  open->add_option("--ready-file", open_files.ready, "write the port here once listening");

  bloomcrawl::testweb::ShopWebOptions shop_options;
  std::string shop_ready;
  std::string shop_log;
  CLI::App* shop = app.add_subcommand("shop", "serve the shop web shop<i>.test on 127.0.0.1 (shop_web.h)");
  shop->add_option("--hosts", shop_options.hosts, "host names")->capture_default_str()->check(CLI::Range(1, 1000));
  shop->add_option("--items", shop_options.items, "items (and products) per host")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1000000u));
  shop->add_option("--port", shop_options.port, "port (0: pick a free one)")->capture_default_str();
  shop->add_option("--ready-file", shop_ready, "write the port here once listening");
  shop->add_option("--log", shop_log, "write the fetches per group and the pages never fetched here at exit");
  CLI11_PARSE(app, argc, argv);

  if (shop->parsed()) return serve_shop(shop_options, shop_ready, shop_log);

  if (open->parsed()) {
    open_options.robots_delay = std::chrono::milliseconds(robots_delay_ms);
    return serve_open(open_options, open_files);
  }

  if (generate->parsed()) {
    static_options.hosts = split_hosts(hosts);
    bloomcrawl::testweb::generate_static_site(static_options, std::cerr);
    return 0;
  }
  options.hosts = split_hosts(hosts);
  options.response_delay = std::chrono::milliseconds(delay_ms);
  options.keep_alive_timeout = std::chrono::seconds(keep_alive_s);
  options.robots = !no_robots;
  options.trap = !no_trap;
  return serve(std::move(options), files);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "bloomcrawl-testweb: error: " << e.what() << "\n";
    return 1;
  }
}
