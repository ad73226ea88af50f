#include "crawler/pipeline/crawl_monitor.h"

#include <unistd.h>

#include <spdlog/spdlog.h>

#include "base/durable_file.h"

namespace bloomcrawl {

CrawlMonitor::CrawlMonitor(Options options, std::function<CrawlStatus()> sample, std::function<nlohmann::json()> report)
    : options_(std::move(options)),
      sample_(std::move(sample)),
      report_(std::move(report)),
      hostname_(this_hostname()),
      process_start_(process_start_time(::getpid()).value_or(0)) {}

CrawlMonitor::~CrawlMonitor() { stop_thread(); }

void CrawlMonitor::start() {
  started_at_ = std::chrono::system_clock::now();
  for (const std::filesystem::path& dir : options_.status_directories) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    bool seen = false;
    for (const std::filesystem::path& d : directories_) seen = seen || std::filesystem::equivalent(d, dir, ec);
    if (!seen) directories_.push_back(dir);
  }
  write_status("");
  thread_ = std::thread([this] { run(); });
}

void CrawlMonitor::finish(const std::string& stopped_by) {
  stop_thread();
  write_status(stopped_by);
}

void CrawlMonitor::stop_thread() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    exit_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void CrawlMonitor::run() {
  using Clock = std::chrono::steady_clock;
  const bool reports = !options_.report_path.empty() && options_.report_interval.count() > 0;
  Clock::time_point next_status = Clock::now() + options_.status_interval;
  Clock::time_point next_report = Clock::now() + options_.report_interval;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    const Clock::time_point wake = reports ? std::min(next_status, next_report) : next_status;
    if (cv_.wait_until(lock, wake, [&] { return exit_; })) return;
    lock.unlock();
    const Clock::time_point now = Clock::now();
    if (now >= next_status) {
      write_status("");
      next_status = now + options_.status_interval;
    }
    if (reports && now >= next_report) {
      write_report();
      next_report = Clock::now() + options_.report_interval;  // after the report: it may take a while
    }
    lock.lock();
  }
}

void CrawlMonitor::write_status(const std::string& stopped_by) {
  CrawlStatus s = sample_();
  const auto wall = std::chrono::system_clock::now();
  const auto now = std::chrono::steady_clock::now();
  s.state = stopped_by.empty() ? "running" : stopped_by == "done" || stopped_by == "page_limit" ? "done" : "stopped";
  s.stopped_by = stopped_by;
  s.pid = ::getpid();
  s.process_start = process_start_;
  s.hostname = hostname_;
  s.started_at = rfc3339_utc(started_at_);
  s.updated_at = rfc3339_utc(wall);
  s.updated_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(wall.time_since_epoch()).count();
  // The oldest sample kept is the newest one at least kRecentWindow old: the rate spans the window.
  recent_.emplace_back(now, s.pages_this_run);
  while (recent_.size() > 2 && now - recent_[1].first >= kRecentWindow) recent_.pop_front();
  const double span = std::chrono::duration<double>(now - recent_.front().first).count();
  s.recent_pages_per_second = span > 0 ? double(s.pages_this_run - recent_.front().second) / span : 0.0;
  if (recent_.size() == 1) s.recent_pages_per_second = s.pages_per_second;
  bool failed = false;
  for (const std::filesystem::path& dir : directories_) {
    try {
      write_status_file(dir, s);
    } catch (const std::exception& e) {
      failed = true;
      if (!status_failing_) spdlog::warn("status file not written: {} (the crawl goes on)", e.what());
    }
  }
  status_failing_ = failed;
}

void CrawlMonitor::write_report() {
  try {
    const std::string text = report_().dump(2) + "\n";
    write_file_durably(options_.report_path, text.data(), text.size());
    report_failing_ = false;
  } catch (const std::exception& e) {
    if (!report_failing_) spdlog::warn("report.json not rewritten: {} (the crawl goes on)", e.what());
    report_failing_ = true;
  }
}

}  // namespace bloomcrawl
