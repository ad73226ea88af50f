// What the benchmarks measure of their own process and of the files they write: CPU seconds of
// all threads (RocksDB's included: on a shared machine a rate per CPU second is steadier than one
// per wall second), peak RSS, and the bytes of a directory's files.
#pragma once

#include <sys/resource.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

namespace bloomcrawl::bench {

inline double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

inline double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// File name (relative to `dir`) -> size of the regular files under `dir`.
inline std::map<std::string, uint64_t> files_of(const std::filesystem::path& dir) {
  std::map<std::string, uint64_t> files;
  for (const std::filesystem::directory_entry& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) files[std::filesystem::relative(entry.path(), dir).string()] = entry.file_size();
  }
  return files;
}

inline uint64_t total_bytes(const std::map<std::string, uint64_t>& files) {
  uint64_t total = 0;
  for (const auto& [name, size] : files) total += size;
  return total;
}

}  // namespace bloomcrawl::bench
