// CrawlMonitor: what a running crawl tells the outside, from a thread of its own so that no file
// write (nor a report, whose filter fill reads every bit of the filter) stalls the scheduler:
//   - status.json (docs/status-file.md) in each of the crawl's directories, at start() and then
//     every second;
//   - report.json every `report_interval` (0: none; the final one is written by the caller, from
//     what Crawler::run() returns), atomically and durably (temp, fsync, rename).
// finish() stops the thread and writes the last status (state done or stopped). A failed write is
// logged, once until one succeeds, and does not stop the crawl: neither file is read to resume.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "crawler/output/status_file.h"

namespace bloomcrawl {

class CrawlMonitor {
 public:
  // The recent rate of the status file is measured over this window.
  static constexpr std::chrono::seconds kRecentWindow{10};

  struct Options {
    std::vector<std::filesystem::path> status_directories;  // duplicates (one directory twice) written once
    std::filesystem::path report_path;                      // empty: no report.json from here
    std::chrono::milliseconds report_interval{0};           // 0: no report.json from here
    std::chrono::milliseconds status_interval{1000};
  };
  // sample(): the crawl's counters now (what CrawlStatus holds but its identity, state and times);
  // report(): report.json's content mid-crawl. Both are called from the monitor's thread.
  CrawlMonitor(Options options, std::function<CrawlStatus()> sample, std::function<nlohmann::json()> report);
  ~CrawlMonitor();  // stops the thread, without a final status
  CrawlMonitor(const CrawlMonitor&) = delete;
  CrawlMonitor& operator=(const CrawlMonitor&) = delete;

  // Writes the first status and starts the thread.
  void start();
  // `stopped_by` as report.json's crawl.stopped_by: the last status says done (done, page_limit)
  // or stopped (signal, error).
  void finish(const std::string& stopped_by);

 private:
  void run();
  void stop_thread();
  void write_status(const std::string& stopped_by);
  void write_report();

  const Options options_;
  const std::function<CrawlStatus()> sample_;
  const std::function<nlohmann::json()> report_;
  std::vector<std::filesystem::path> directories_;  // options_.status_directories, each once
  const std::string hostname_;
  const uint64_t process_start_;
  std::chrono::system_clock::time_point started_at_;

  // The monitor's thread only (and finish(), after it has stopped).
  std::deque<std::pair<std::chrono::steady_clock::time_point, uint64_t>> recent_;  // (when, pages this run)
  bool status_failing_ = false;
  bool report_failing_ = false;

  std::mutex mu_;
  std::condition_variable cv_;
  bool exit_ = false;  // under mu_
  std::thread thread_;
};

}  // namespace bloomcrawl
