// Checkpoints of a SeenFilter in a directory (format: docs/checkpoint-format.md).
//
// Taking one stalls the crawl only for SeenFilter::snapshot() (sealed layers are shared, the
// active one copied); save_checkpoint() then runs on the snapshot without blocking inserters.
// Sealed layers are written once and reused by later checkpoints, so only the active layer is
// rewritten. Saving is crash-safe (temp file, fsync, rename, CURRENT switched last): a kill at
// any instant leaves the previous checkpoint loadable. Loading verifies every size and checksum
// and throws CheckpointError (base/data_error.h) naming the file and the problem.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "seenfilter/checkpoint_format.h"
#include "seenfilter/seen_filter.h"

namespace bloomcrawl {

struct CheckpointSaveOptions {
  // Manifests kept (newest first, at least 1); layer files only they refer to are kept too.
  uint32_t keep_manifests = 2;
  // Earlier checkpoint directories (e.g. a previous crawl generation) whose identical layer
  // files are hard-linked instead of rewritten.
  std::vector<std::filesystem::path> link_from;
  // Called after each durable step ("layer 3 written", "manifest written", "CURRENT switched", ...),
  // for progress display and for crash tests.
  std::function<void(std::string_view step)> progress;
};

// Saves and makes the new manifest current; returns its file name (e.g. "MANIFEST-000007").
std::string save_checkpoint(const FilterSnapshot& snapshot, const std::filesystem::path& dir,
                            const CheckpointSaveOptions& options = {});

// True if `dir` holds a CURRENT pointer (it may still be corrupt; loading tells).
bool checkpoint_exists(const std::filesystem::path& dir);

// Reads the checkpoint CURRENT names, or the manifest `manifest_name` if not empty.
FilterSnapshot read_checkpoint(const std::filesystem::path& dir, std::string_view manifest_name = {});
// read_checkpoint, then a live filter continuing from it.
std::unique_ptr<SeenFilter> load_checkpoint(const std::filesystem::path& dir, std::string_view manifest_name = {});

struct CheckpointLayerInfo {
  seenfilter::ManifestLayer entry;
  std::string file;
  uint64_t set_bits = 0;
  double fill = 0;           // set_bits / all bits
  double bits_per_key = 0;   // bits over capacity
  double target_fpr = 0;     // the layer's share of the filter's target
  double estimated_fpr = 0;  // at its key count
};

struct CheckpointInfo {
  std::string manifest;  // file name
  uint64_t sequence = 0;
  SeenFilterOptions options;
  std::vector<CheckpointLayerInfo> layers;
  uint64_t keys = 0;
  uint64_t bytes = 0;
  double estimated_fpr = 0;
  double estimated_false_positives = 0;
};

// Describes a checkpoint, reading and verifying every file without building a filter.
CheckpointInfo inspect_checkpoint(const std::filesystem::path& dir, std::string_view manifest_name = {});

}  // namespace bloomcrawl
