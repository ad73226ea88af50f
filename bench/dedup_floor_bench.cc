// The floor under `bloomcrawl dedup` at one FPR, for bench/run_dedup_bench.sh: the file's lines
// in memory, and the CPU time of each step dedup cannot skip, timed apart. Prints one row per step,
// "step wall_s cpu_s", on stdout:
//   read    read() of the file in dedup's chunks (page cache to user memory), nothing else
//   split   the lines of the in-memory bytes found as dedup finds them (split_lines, chunk by chunk)
//   hash    XXH3-128 of every line (hash_key: the filter's one hash per key)
//   setup   sizing and mapping the filter (SeenFilter's constructor)
//   insert  insert_batch of every line, in dedup's batches, Writers::kOne (hashing included)
// read + split + insert is what a dedup at that FPR and capacity spends before writing a byte.
// (Named *_bench.cc so bench/CMakeLists.txt's glob builds it; it has its own main.)
//
//   dedup_floor_bench FILE CAPACITY FPR
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "crawler/cli/line_stream.h"
#include "seenfilter/key_hash.h"
#include "seenfilter/seen_filter.h"

namespace {

using bloomcrawl::kReadChunkBytes;

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Runs `step` once and prints its wall and CPU time.
template <typename Step>
void timed(const char* name, Step&& step) {
  const auto wall = std::chrono::steady_clock::now();
  const double cpu = thread_cpu_seconds();
  step();
  const double cpu_s = thread_cpu_seconds() - cpu;
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
  std::printf("%s %.6f %.6f\n", name, wall_s, cpu_s);
}

// Reads `fd` to its end in dedup's chunk size into `sink` (or into one reused chunk when null).
size_t read_all(int fd, std::vector<char>* sink) {
  std::vector<char> chunk(kReadChunkBytes);
  size_t total = 0;
  for (ssize_t n; (n = ::read(fd, chunk.data(), chunk.size())) != 0;) {
    if (n < 0) {
      std::perror("dedup_floor_bench: read");
      std::_Exit(1);
    }
    if (sink != nullptr) sink->insert(sink->end(), chunk.data(), chunk.data() + n);
    total += static_cast<size_t>(n);
  }
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s FILE CAPACITY FPR\n", argv[0]);
    return 2;
  }
  const char* path = argv[1];
  bloomcrawl::SeenFilterOptions options;  // as `bloomcrawl dedup --capacity C --fpr F` makes it
  options.initial_capacity = std::strtoull(argv[2], nullptr, 10);
  options.target_fpr = std::strtod(argv[3], nullptr);

  const int fd = ::open(path, O_RDONLY);
  if (fd < 0) {
    std::perror(path);
    return 1;
  }
  std::vector<char> bytes;
  read_all(fd, &bytes);  // also warms the page cache for the timed read
  if (!bytes.empty() && bytes.back() != '\n') bytes.push_back('\n');
  size_t read_bytes = 0;
  ::lseek(fd, 0, SEEK_SET);
  timed("read", [&] { read_bytes = read_all(fd, nullptr); });
  ::close(fd);

  // The split as read_lines does it: chunk by chunk into one reused vector of views.
  size_t line_count = 0;
  size_t line_bytes = 0;
  timed("split", [&] {
    std::vector<std::string_view> lines;
    const char* start = bytes.data();
    const char* const end = bytes.data() + bytes.size();
    for (const char* chunk = start; chunk < end;) {
      const char* const chunk_end = chunk + std::min<size_t>(kReadChunkBytes, static_cast<size_t>(end - chunk));
      lines.clear();
      start = bloomcrawl::split_lines(start, chunk, chunk_end, lines);
      line_count += lines.size();
      for (const std::string_view line : lines) line_bytes += line.size();
      chunk = chunk_end;
    }
  });

  std::vector<std::string_view> lines;  // all of them, untimed, for the steps below
  lines.reserve(line_count);
  bloomcrawl::split_lines(bytes.data(), bytes.data(), bytes.data() + bytes.size(), lines);

  uint64_t hash_sum = 0;
  timed("hash", [&] {
    for (const std::string_view line : lines) hash_sum += bloomcrawl::hash_key(line).low;
  });

  std::unique_ptr<bloomcrawl::SeenFilter> filter;
  timed("setup", [&] { filter = std::make_unique<bloomcrawl::SeenFilter>(options); });

  // Batches of one chunk's worth of lines, as dedup hands them over.
  const size_t mean_line = line_count == 0 ? 1 : line_bytes / line_count + 1;  // with its '\n'
  const size_t batch = std::max<size_t>(1, kReadChunkBytes / mean_line);
  std::vector<bloomcrawl::InsertOutcome> outcomes(batch);
  size_t fresh = 0;
  timed("insert", [&] {
    for (size_t i = 0; i < lines.size(); i += batch) {
      const size_t n = std::min(batch, lines.size() - i);
      filter->insert_batch(std::span(lines).subspan(i, n), std::span(outcomes).first(n),
                           bloomcrawl::SeenFilter::Writers::kOne);
      for (size_t j = 0; j < n; ++j) fresh += outcomes[j] == bloomcrawl::InsertOutcome::kNew ? 1 : 0;
    }
  });
  std::fprintf(stderr, "dedup_floor_bench: %zu lines (%zu bytes read), %zu new, hash sum %llx\n", line_count,
               read_bytes, fresh, static_cast<unsigned long long>(hash_sum));
  return 0;
}
