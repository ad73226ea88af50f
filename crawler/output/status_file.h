// The crawl's status file, `status.json` (format: docs/status-file.md): what a running crawl
// rewrites every second so that `bloomcrawl status DIR` (or any tool) can tell how it is doing.
// write_status_file() replaces the file atomically (temp, rename) but does not fsync it: it is a
// view of the crawl, never read to resume (the doc says why). read_status_file() refuses a file
// that is not one, or of an unknown version, naming the path. writer_alive() tells whether the
// process that wrote a status still runs, without touching the directory's LOCK.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace bloomcrawl {

inline constexpr const char* kStatusFileName = "status.json";
inline constexpr uint32_t kStatusFileVersion = 2;  // 2: the revisit and content-seen fields

struct CrawlStatus {
  std::string state = "running";  // running, done, stopped
  std::string stopped_by;         // "" while running; else report.json's crawl.stopped_by
  int64_t pid = 0;
  uint64_t process_start = 0;  // /proc/PID/stat starttime; 0 unknown
  std::string hostname;
  std::string started_at;  // RFC 3339 UTC, milliseconds
  std::string updated_at;
  int64_t updated_unix_ms = 0;
  double seconds = 0;
  uint64_t pages = 0;
  uint64_t pages_this_run = 0;
  double pages_per_second = 0;
  double recent_pages_per_second = 0;
  uint64_t queued = 0;
  uint64_t hosts = 0;
  uint64_t in_flight = 0;
  uint64_t duplicates_avoided = 0;
  uint64_t false_positives_rescued = 0;  // seen_filter.exact (docs/records.md)
  // recrawl (docs/recrawl.md): revisits with a response, and when the next known page falls due.
  uint64_t revisited = 0;
  int64_t revisit_next_due_ms = 0;  // Unix ms; 0: none known
  uint64_t revisits_due_within_hour = 0;
  // content_seen (docs/content-seen.md)
  uint64_t exact_duplicates = 0;
  uint64_t near_duplicates = 0;
  uint64_t learned_rules = 0;
  uint64_t fetches_saved_by_rules = 0;
  uint64_t warc_bytes_saved = 0;
  uint64_t filter_keys = 0;
  uint64_t filter_capacity = 0;
  uint64_t filter_layers = 0;
  uint64_t filter_bytes = 0;
  std::string output_directory;
  std::string checkpoint_directory;

  double filter_fill() const { return filter_capacity ? double(filter_keys) / double(filter_capacity) : 0.0; }
};

nlohmann::json to_json(const CrawlStatus& status);
// Throws CheckpointError naming `name` when `json` is not a status of a known version.
CrawlStatus status_from_json(const nlohmann::json& json, const std::string& name);

// Replaces DIR/status.json (through DIR/status.json.new). Throws CheckpointError naming the file.
void write_status_file(const std::filesystem::path& dir, const CrawlStatus& status);
// Throws CheckpointError naming the file when it is missing, unreadable or not a status.
CrawlStatus read_status_file(const std::filesystem::path& dir);

// `time` as RFC 3339 UTC with milliseconds, "2026-12-02T00:05:11.123Z".
std::string rfc3339_utc(std::chrono::system_clock::time_point time);
// This machine's host name ("" when unknown).
std::string this_hostname();
// Field 22 of /proc/PID/stat (the start time in clock ticks since boot), or nullopt when no such
// process runs (none, or a zombie) or /proc cannot say.
std::optional<uint64_t> process_start_time(pid_t pid);
// Whether the process that wrote `status` is running: true or false when this host can tell,
// nullopt when it was written on another host.
std::optional<bool> writer_alive(const CrawlStatus& status);

}  // namespace bloomcrawl
