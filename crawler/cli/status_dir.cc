#include "crawler/cli/status_dir.h"

#include <chrono>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "base/data_error.h"
#include "base/dir_lock.h"
#include "crawler/output/status_file.h"
#include "crawler/output/timestamp.h"
#include "crawler/persist/crawl_checkpoint.h"

namespace bloomcrawl::cli {
namespace {

namespace fs = std::filesystem;

std::string format(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// recrawl (docs/recrawl.md): what a continuous crawl waits for, or when a resume has work.
std::string revisit_line(const CrawlStatus& s) {
  std::string out = format("revisits: %llu known pages revisited", (unsigned long long)s.revisited);
  if (s.revisit_next_due_ms > 0) {
    const auto due = std::chrono::system_clock::time_point(std::chrono::milliseconds(s.revisit_next_due_ms));
    const double in_s = double(s.revisit_next_due_ms - s.updated_unix_ms) / 1000.0;
    out += "; next due " + rfc3339_utc_ms(due) +
           (in_s > 0 ? format(" (%.0f s after the last update)", in_s) : std::string(" (due)")) +
           format(", %llu due within the hour", (unsigned long long)s.revisits_due_within_hour);
  }
  return out + "\n";
}

std::string human(const nlohmann::json& j, const CrawlStatus& s) {
  const double age = j["age_seconds"].get<double>();
  const nlohmann::json& alive = j["alive"];
  std::string process = "pid " + std::to_string(s.pid);
  process += alive.is_null()     ? " on host " + s.hostname + " (not this host: not checked)"
             : alive.get<bool>() ? " running"
                                 : " no longer running";
  std::string out = "crawl " + j["state"].get<std::string>();
  if (!s.stopped_by.empty() && s.stopped_by != j["state"].get<std::string>()) out += " (" + s.stopped_by + ")";
  out += ": " + process;
  if (!j["clean_exit"].get<bool>()) out += "; it ended without a final status (killed or crashed)";
  out += format("\nlast update %.1f s ago (%s); started %s, %.1f s before it\n", age, s.updated_at.c_str(),
                s.started_at.c_str(), s.seconds);
  out += format("pages: %llu fetched (%llu this run), %.1f pages/s this run", (unsigned long long)s.pages,
                (unsigned long long)s.pages_this_run, s.pages_per_second);
  if (s.state == "running") out += format(", %.1f over the last 10 s", s.recent_pages_per_second);
  out += format("\nfrontier: %llu queued on %llu hosts, %llu in flight\nduplicates avoided: %llu\n",
                (unsigned long long)s.queued, (unsigned long long)s.hosts, (unsigned long long)s.in_flight,
                (unsigned long long)s.duplicates_avoided);
  out += format("seen filter: %llu keys, %.1f%% of its capacity of %llu keys in %llu layer(s), %.2f MB\n",
                (unsigned long long)s.filter_keys, 100.0 * s.filter_fill(), (unsigned long long)s.filter_capacity,
                (unsigned long long)s.filter_layers, double(s.filter_bytes) / (1 << 20));
  if (s.revisited > 0 || s.revisit_next_due_ms > 0) out += revisit_line(s);
  if (j["state"] == "stopped" && !s.checkpoint_directory.empty()) {
    out += "continue it with: bloomcrawl crawl --resume " + s.checkpoint_directory + "\n";
  }
  return out;
}

}  // namespace

int print_dir_status(const fs::path& dir, bool json, std::ostream& out, std::ostream& err) {
  if (!fs::exists(dir / kStatusFileName)) {
    err << "bloomcrawl status: " << (dir / kStatusFileName).string() << ": no status file";
    if (is_crawl_checkpoint(dir)) {
      err << " (the crawl checkpointed here ran before bloomcrawl wrote one); `bloomcrawl inspect " << dir.string()
          << "` describes its checkpoint";
    } else {
      err << ": give the output or checkpoint directory of a crawl";
    }
    err << "\n";
    return 1;
  }
  CrawlStatus s;
  try {
    s = read_status_file(dir);
  } catch (const CheckpointError& e) {
    err << "bloomcrawl status: " << e.what() << "\n";
    return 1;
  }
  const std::optional<bool> alive = writer_alive(s);
  const bool died = s.state == "running" && alive == false;
  const auto now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  nlohmann::json j = to_json(s);
  j["directory"] = dir.string();
  j["written_state"] = s.state;
  j["state"] = died ? "stopped" : s.state;
  j["alive"] = alive ? nlohmann::json(*alive) : nlohmann::json(nullptr);
  j["clean_exit"] = !died;
  j["age_seconds"] = double(now_ms - s.updated_unix_ms) / 1000.0;
  j["lock_pid"] = recorded_lock_holder(dir);
  if (json) {
    out << j.dump(2) << "\n";
  } else {
    out << human(j, s);
  }
  return 0;
}

}  // namespace bloomcrawl::cli
