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
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "seenfilter/checkpoint_format.h"
#include "seenfilter/seen_filter.h"

namespace bloomcrawl {

struct CheckpointSaveOptions {
  // Manifests kept (at least 1): the new one, which CURRENT names, and the newest before it; layer
  // files only they refer to are kept too.
  uint32_t keep_manifests = 2;
  // False: the save removes nothing, and the caller runs retain_checkpoints() once whatever names
  // the new manifest is durable (a crawl checkpoint does, after its own CURRENT).
  bool retention = true;
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

// Retention by reference: keeps the manifest CURRENT names, the `keep - 1` newest before it, those
// named in `pinned`, and any newer than CURRENT's (a save that failed before its switch; a later
// save makes them older); removes the other manifests, the layer files no kept manifest uses, and
// leftover temp files. Removes no layer file while a kept manifest cannot be read (what it uses is
// unknown), and nothing at all while CURRENT cannot. Best effort, never throws: a file that cannot
// be removed now is removed by a later call.
void retain_checkpoints(const std::filesystem::path& dir, uint32_t keep, const std::set<std::string>& pinned = {});

// True if `dir` holds a CURRENT pointer (it may still be corrupt; loading tells).
bool checkpoint_exists(const std::filesystem::path& dir);

// Reads the checkpoint CURRENT names, or the manifest `manifest_name` if not empty.
FilterSnapshot read_checkpoint(const std::filesystem::path& dir, std::string_view manifest_name = {});
// read_checkpoint, then a live filter continuing from it.
std::unique_ptr<SeenFilter> load_checkpoint(const std::filesystem::path& dir, std::string_view manifest_name = {});

struct CheckpointLayerInfo {
  std::string kind = "bloom";  // or "compact" (the big level's fuse shards) or "run" (version 3); entry.keys their keys
  uint64_t bytes = 0;
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
  uint32_t version = 0;
  uint64_t log_keys = 0;  // version 2: the hash log's keys this checkpoint covers
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
