// `bloomcrawl dedup`: prints each stdin line not seen before, in order, like awk '!seen[$0]++'
// but in bounded memory (a SeenFilter). With --state DIR the filter is loaded from a checkpoint
// there first and saved back at the end, so runs on different days dedupe together. DIR is
// created if missing and locked at the start, for the whole run (base/dir_lock.h): a second dedup
// on it is refused before it reads a line, naming the holder's PID, rather than one of them finding
// at the end that the other saved there meanwhile. A run cut off by `| head` saves nothing, so it
// leaves DIR without state (only its LOCK file).
//
// Lines are read in 128 KiB chunks and inserted a chunk at a time with insert_batch; output is
// written in large blocks, or line by line to a terminal or with --line-buffered. When the reader
// of the output goes away (`| head`) the command stops quietly, without saving --state: the
// filter then holds lines that were never delivered. A line the filter cannot record (memory limit reached: kFull) is
// printed, since it cannot be shown to be a duplicate, and counted; a warning says so once. A
// --compact filter whose disk fails (its hash log or a rebuild) is not full: dedup stops with exit
// 1 naming it, saving nothing.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/dir_lock.h"
#include "base/file_system.h"
#include "crawler/cli/command.h"
#include "crawler/cli/line_stream.h"
#include "seenfilter/checkpoint.h"
#include "seenfilter/seen_filter.h"

namespace bloomcrawl::cli {
namespace {

struct DedupArgs {
  std::string state_dir;
  uint64_t capacity = SeenFilterOptions{}.initial_capacity;
  double fpr = 1e-6;
  double tightening = SeenFilterOptions{}.tightening_ratio;
  bool compact = false;
  std::optional<uint64_t> memory_limit;
  bool stats = false;
  bool line_buffered = false;
};

struct DedupCounts {
  uint64_t lines_in = 0;
  uint64_t fresh = 0;
  uint64_t duplicates = 0;
  uint64_t unrecorded = 0;  // printed, but the full filter could not remember them
};

// Without --state the compact filter's hash log lives in a private temporary directory, removed
// at exit (kill -9 aside: it is under the system's temp path).
class ScratchDir {
 public:
  ScratchDir() = default;
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& create() {
    std::string pattern = (std::filesystem::temp_directory_path() / "bloomcrawl-dedup-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw_file_error(pattern, "cannot create a directory", errno);
    path_ = pattern;
    return path_;
  }

 private:
  std::filesystem::path path_;
};

// With --compact a growing filter is compact (docs/seenfilter.md, "Compaction"): its hash log goes
// in the state directory, or in `scratch`. It is not the default here: dedup is all inserts, and a
// compact filter's inserts (rebuilds included) cost 1.3-1.6x a layered one's CPU at 10M keys and
// 2.5-2.8x at 700k (bench/results/compact-filter.md, "Eleventh stop"): --compact reads 10M lines
// at 0.95-1.02x the default's lines per second since runs are built in pairs, 2M lines at
// 0.6-0.77x (bench/compact_dedup_compare.py; there sorted shards' probes cost more than Bloom
// layers', and a seal waits for a merge, which outlasts the active layer's fill). A right-sized filter
// (--tightening 0) never grows and stays one layer.
std::unique_ptr<SeenFilter> open_filter(const DedupArgs& args, ScratchDir& scratch) {
  if (!args.state_dir.empty() && checkpoint_exists(args.state_dir)) {
    // The saved parameters win (the bits were laid out with them); only the limit may change.
    FilterSnapshot snapshot = read_checkpoint(args.state_dir);
    if (args.memory_limit) snapshot.options.memory_limit_bytes = *args.memory_limit;
    return std::make_unique<SeenFilter>(snapshot);
  }
  SeenFilterOptions options;
  options.initial_capacity = args.capacity;
  options.target_fpr = args.fpr;
  options.tightening_ratio = args.tightening;
  if (args.memory_limit) options.memory_limit_bytes = *args.memory_limit;
  if (args.compact && args.tightening != 0.0) {
    options.hash_log = (args.state_dir.empty() ? scratch.create() : std::filesystem::path(args.state_dir)) /
                       seenfilter::kHashLogFileName;
  }
  return std::make_unique<SeenFilter>(options);
}

void dedup_lines(SeenFilter& filter, std::span<const std::string_view> lines, DedupCounts& counts, LineWriter& out) {
  static thread_local std::vector<InsertOutcome> outcomes;
  outcomes.resize(lines.size());
  filter.insert_batch(lines, outcomes, SeenFilter::Writers::kOne);  // dedup is single-threaded
  for (size_t i = 0; i < lines.size(); ++i) {
    switch (outcomes[i]) {
      case InsertOutcome::kSeen: ++counts.duplicates; continue;
      case InsertOutcome::kNew: ++counts.fresh; break;
      case InsertOutcome::kFull:
        if (counts.unrecorded++ == 0) {
          std::cerr << "bloomcrawl dedup: warning: filter full, later new lines are printed but not remembered: "
                    << filter.full_reason() << "\n";
        }
        break;
    }
    out.append_line(lines[i]);
  }
  counts.lines_in += lines.size();
}

// A once-a-second "lines so far" line on stderr, only when stderr is a terminal.
class TerminalProgress {
 public:
  TerminalProgress() : enabled_(::isatty(STDERR_FILENO) == 1) {}
  ~TerminalProgress() {
    if (shown_) std::cerr << "\n";
  }
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;
  void update(const DedupCounts& counts) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::seconds(1)) return;
    last_ = now;
    shown_ = true;
    std::cerr << "\rdedup: " << counts.lines_in << " lines, " << counts.fresh << " new" << std::flush;
  }

 private:
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

void dedup_stdin(SeenFilter& filter, DedupCounts& counts, LineWriter::Buffering buffering) {
  TerminalProgress progress;
  LineWriter out("dedup", STDOUT_FILENO, buffering);
  read_lines(STDIN_FILENO, "dedup", [&](std::span<const std::string_view> lines) {
    dedup_lines(filter, lines, counts, out);
    progress.update(counts);
  });
  out.flush();
}

void print_stats(const SeenFilter& filter, const DedupCounts& counts, const std::string& manifest) {
  const SeenFilterStats s = filter.stats(false);
  nlohmann::json j = {
      {"lines_in", counts.lines_in},
      {"new", counts.fresh},
      {"duplicates", counts.duplicates},
      {"unrecorded_full", counts.unrecorded},
      {"layers", s.layers.size()},
      {"keys", s.keys},
      {"bytes", s.bytes},
      {"bits_per_key", s.bits_per_key},
      {"estimated_fpr", s.estimated_fpr},
      {"estimated_false_positives", s.estimated_false_positives},
      {"full", s.full},
  };
  if (!manifest.empty()) j["state_manifest"] = manifest;
  std::cerr << j.dump() << "\n";
  std::cerr << "dedup: " << counts.lines_in << " lines, " << counts.fresh << " new, " << counts.duplicates
            << " duplicates; filter " << s.keys << " keys in " << s.layers.size() << " layers, " << s.bytes
            << " bytes, estimated FPR " << s.estimated_fpr << "\n";
}

RunFn setup_dedup(CLI::App& app) {
  auto args = std::make_shared<DedupArgs>();
  app.add_option("--state", args->state_dir, "checkpoint directory: loaded first if present, saved at the end");
  app.add_option("--capacity", args->capacity, "keys in the first filter layer (new filters only)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--fpr", args->fpr, "target false-positive rate (new filters only)")->capture_default_str();
  app.add_option("--tightening", args->tightening,
                 "FPR ratio of successive layers; 0 = one right-sized layer of --capacity keys (new filters only)")
      ->capture_default_str();
  app.add_option("--memory-limit", args->memory_limit, "bound on filter memory, e.g. 512M, 4G")
      ->transform(CLI::AsSizeValue(false));
  app.add_flag("--compact", args->compact,
               "a growing filter rebuilds its full layers into one compact filter (~28 bits a key at 1e-6, "
               "slower inserts; new filters only)");
  app.add_flag("--stats", args->stats, "print a JSON summary on stderr");
  app.add_flag("--line-buffered", args->line_buffered, "write each line at once (the default on a terminal)");
  return [args] {
    std::optional<DirLock> lock;
    if (!args->state_dir.empty()) lock.emplace(args->state_dir);
    ScratchDir scratch;
    std::unique_ptr<SeenFilter> filter = open_filter(*args, scratch);
    DedupCounts counts;
    try {
      dedup_stdin(*filter, counts, args->line_buffered ? LineWriter::Buffering::kLine : LineWriter::Buffering::kAuto);
    } catch (const OutputClosed&) {
      return kOutputClosedExitStatus;
    }
    std::string manifest;
    if (!args->state_dir.empty()) manifest = save_checkpoint(filter->snapshot(), args->state_dir);
    if (args->stats) print_stats(*filter, counts, manifest);
    return 0;
  };
}

BLOOMCRAWL_COMMAND("dedup", "print stdin lines not seen before (bounded memory, optional saved state)", setup_dedup);

}  // namespace
}  // namespace bloomcrawl::cli
