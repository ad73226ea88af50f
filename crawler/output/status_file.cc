#include "crawler/output/status_file.h"

#include <unistd.h>
#include <csignal>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <ctime>

#include "base/data_error.h"
#include "base/file_system.h"

namespace bloomcrawl {
namespace {

constexpr size_t kMaxStatusBytes = 1 << 16;

// The fields in the order of docs/status-file.md, for both directions.
template <class Status, class Visit>
void visit_fields(Status& s, Visit&& v) {
  v("state", s.state);
  v("stopped_by", s.stopped_by);
  v("pid", s.pid);
  v("process_start", s.process_start);
  v("hostname", s.hostname);
  v("started_at", s.started_at);
  v("updated_at", s.updated_at);
  v("updated_unix_ms", s.updated_unix_ms);
  v("seconds", s.seconds);
  v("pages", s.pages);
  v("pages_this_run", s.pages_this_run);
  v("pages_per_second", s.pages_per_second);
  v("recent_pages_per_second", s.recent_pages_per_second);
  v("queued", s.queued);
  v("hosts", s.hosts);
  v("in_flight", s.in_flight);
  v("duplicates_avoided", s.duplicates_avoided);
  v("false_positives_rescued", s.false_positives_rescued);
  v("revisited", s.revisited);
  v("revisit_next_due_ms", s.revisit_next_due_ms);
  v("revisits_due_within_hour", s.revisits_due_within_hour);
  v("exact_duplicates", s.exact_duplicates);
  v("near_duplicates", s.near_duplicates);
  v("learned_rules", s.learned_rules);
  v("fetches_saved_by_rules", s.fetches_saved_by_rules);
  v("warc_bytes_saved", s.warc_bytes_saved);
  v("filter_keys", s.filter_keys);
  v("filter_capacity", s.filter_capacity);
  v("filter_layers", s.filter_layers);
  v("filter_bytes", s.filter_bytes);
  v("output_directory", s.output_directory);
  v("checkpoint_directory", s.checkpoint_directory);
}

}  // namespace

nlohmann::json to_json(const CrawlStatus& status) {
  nlohmann::json out = {{"format", "bloomcrawl-status"}, {"version", kStatusFileVersion}};
  visit_fields(status, [&](const char* name, const auto& field) { out[name] = field; });
  out["filter_fill"] = status.filter_fill();
  return out;
}

CrawlStatus status_from_json(const nlohmann::json& json, const std::string& name) {
  if (!json.is_object() || json.value("format", "") != "bloomcrawl-status") {
    throw CheckpointError(name, "not a bloomcrawl status file");
  }
  const nlohmann::json& version = json["version"];
  if (!version.is_number_unsigned() || version.get<uint64_t>() != kStatusFileVersion) {
    throw CheckpointError(name, "status file version " + version.dump() + " is not " +
                                    std::to_string(kStatusFileVersion) + " (a different bloomcrawl version?)");
  }
  CrawlStatus status;
  visit_fields(status, [&](const char* field, auto& member) {
    try {
      json.at(field).get_to(member);
    } catch (const nlohmann::json::exception&) {
      throw CheckpointError(name, std::string("status field '") + field + "' is missing or of the wrong type");
    }
  });
  return status;
}

void write_status_file(const std::filesystem::path& dir, const CrawlStatus& status) {
  const std::filesystem::path path = dir / kStatusFileName;
  const std::filesystem::path temp = path.string() + ".new";
  const std::string text = to_json(status).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  {
    WritableFile file(temp, FileSystem::Mode::kTruncate);
    file.append(text);
    file.close();
  }
  if (const int error = file_system().rename(temp, path)) {
    file_system().remove(temp);
    throw_file_error(path, "rename failed", error);
  }
}

CrawlStatus read_status_file(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / kStatusFileName;
  const nlohmann::json json = nlohmann::json::parse(read_whole_file(path, kMaxStatusBytes), nullptr, false);
  if (json.is_discarded()) throw CheckpointError(path.string(), "not JSON");
  return status_from_json(json, path.string());
}

std::string rfc3339_utc(std::chrono::system_clock::time_point time) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
  const auto seconds = std::time_t(ms / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[96];  // room for any int the compiler sees: the text is 24 bytes
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, int(ms % 1000));
  return buf;
}

std::string this_hostname() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return {};
  return buf;
}

std::optional<uint64_t> process_start_time(pid_t pid) {
  std::string stat;
  if (file_system().read_file("/proc/" + std::to_string(pid) + "/stat", 4096, &stat) != 0) return std::nullopt;
  // "PID (comm) state ppid ...": comm may hold spaces and parentheses, so fields count from the last ')'.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  size_t pos = close + 1;
  // A zombie (killed, not yet reaped by its parent) runs no more.
  if (const size_t state = stat.find_first_not_of(' ', pos);
      state == std::string::npos || stat[state] == 'Z' || stat[state] == 'X') {
    return std::nullopt;
  }
  for (int field = 3; field <= 22; ++field) {  // field 3 (state) starts after ") "
    pos = stat.find_first_not_of(' ', pos);
    if (pos == std::string::npos) return std::nullopt;
    if (field == 22) return std::strtoull(stat.c_str() + pos, nullptr, 10);
    pos = stat.find(' ', pos);
    if (pos == std::string::npos) return std::nullopt;
  }
  return std::nullopt;
}

std::optional<bool> writer_alive(const CrawlStatus& status) {
  if (status.hostname != this_hostname()) return std::nullopt;
  if (status.pid <= 0) return false;
  const auto pid = pid_t(status.pid);
  if (std::optional<uint64_t> start = process_start_time(pid)) {
    return status.process_start == 0 || *start == status.process_start;
  }
  if (std::filesystem::exists("/proc/self/stat")) return false;  // /proc answers, and has no such process
  return ::kill(pid, 0) == 0 || errno == EPERM;
}

}  // namespace bloomcrawl
