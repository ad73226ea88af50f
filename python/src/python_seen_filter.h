// PythonSeenFilter: what `bloomcrawl.SeenFilter` is in Python. A SeenFilter (seenfilter/seen_filter.h)
// plus the counts `bloomcrawl dedup --stats` reports (keys given, new, duplicates, not recorded
// because the filter was full), its checkpoints in the C++ format (seenfilter/checkpoint.h) and the
// GIL rules:
//   - add and contains keep the GIL: one probe costs less than releasing and taking it back;
//   - add_many reads the keys with the GIL held, then inserts them all with it released, so other
//     Python threads run meanwhile and several add_many calls insert truly in parallel;
//   - save and load release it for their file I/O.
// Every method may be called from any number of threads at once (SeenFilter is thread-safe); saves
// of one filter run one at a time, and a save holds the directory's LOCK (base/dir_lock.h) so that
// a `bloomcrawl dedup --state` on the same directory is refused rather than interleaved.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "seenfilter/seen_filter.h"

namespace bloomcrawl::python {

class PythonSeenFilter {
 public:
  // Throws std::invalid_argument (ValueError) naming a bad option.
  explicit PythonSeenFilter(const SeenFilterOptions& options);
  explicit PythonSeenFilter(std::unique_ptr<SeenFilter> filter) : filter_(std::move(filter)) {}
  PythonSeenFilter(const PythonSeenFilter&) = delete;
  PythonSeenFilter& operator=(const PythonSeenFilter&) = delete;

  // Reads the checkpoint `dir`/CURRENT names; the saved parameters are kept, only the memory
  // limit may be replaced. Throws CheckpointError naming the file for anything missing or wrong.
  static std::unique_ptr<PythonSeenFilter> load(const std::filesystem::path& dir, std::optional<uint64_t> memory_limit);

  // True when the key was not in the filter: recorded now, or (filter full) not recordable.
  bool add(pybind11::handle key);
  pybind11::list add_many(pybind11::handle keys);
  bool contains(pybind11::handle key) const;

  uint64_t size() const { return filter_->size(); }
  double estimated_fpr() const { return filter_->stats(false).estimated_fpr; }
  bool full() const { return filter_->full(); }
  const SeenFilterOptions& options() const { return filter_->options(); }
  // The fields of `bloomcrawl dedup --stats`, with keys_in in place of its lines_in.
  pybind11::dict stats() const;

  // Saves a checkpoint into `dir` (created if missing), keeping `keep_manifests` manifests; returns
  // the new manifest's file name.
  std::string save(const std::filesystem::path& dir, uint32_t keep_manifests);

 private:
  void count(uint64_t fresh, uint64_t duplicates, uint64_t unrecorded);

  std::unique_ptr<SeenFilter> filter_;
  std::atomic<uint64_t> new_{0};
  std::atomic<uint64_t> duplicates_{0};
  std::atomic<uint64_t> unrecorded_full_{0};
  std::mutex save_mu_;
};

}  // namespace bloomcrawl::python
