// Encoding and validation of the seen-filter checkpoint files, as specified in
// docs/checkpoint-format.md. Pure functions over bytes (no I/O), so they can be fuzzed.
// Every decoding failure throws CheckpointError naming the file and the problem.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/data_error.h"
#include "seenfilter/blocked_bloom_math.h"
#include "seenfilter/seen_filter.h"

namespace bloomcrawl::seenfilter {

inline constexpr uint32_t kCheckpointVersion = 1;       // layer files, and a layered filter's manifest
inline constexpr uint32_t kCompactManifestVersion = 2;  // a compact filter's manifest, big level only
inline constexpr uint32_t kTieredManifestVersion = 3;   // a compact filter's manifest with runs
inline constexpr size_t kCompactSectionBytes = 24;      // after the header, versions 2 and 3
inline constexpr size_t kManifestRunBytes = 16;         // a run's header, version 3
inline constexpr size_t kManifestShardBytes = 32;
inline constexpr const char* kHashLogFileName = "hashlog";
inline constexpr size_t kManifestHeaderBytes = 64;
inline constexpr size_t kManifestEntryBytes = 48;
inline constexpr size_t kLayerHeaderBytes = 48;
inline constexpr size_t kChecksumBytes = 8;
inline constexpr uint64_t kMaxLayerBlocks = uint64_t{1} << 40;
inline constexpr uint32_t kMaxManifestShards = 256;  // per shard list: the big level's, each run's

struct ManifestLayer {
  uint32_t index = 0;
  uint32_t probes = 0;
  uint64_t capacity = 0;
  uint64_t keys = 0;
  uint64_t blocks = 0;
  uint64_t file_size = 0;
  uint64_t checksum = 0;

  LayerGeometry geometry() const { return {index, capacity, blocks, probes}; }
  std::string file_name() const;
};

// Version 2: one shard of the compact layer (docs/checkpoint-format.md, "Version 2").
struct ManifestShard {
  uint32_t rotation = 0;
  uint64_t keys = 0;
  uint64_t file_size = 0;  // 0: no filter yet
  uint64_t checksum = 0;
  std::string file_name() const;
};

// Version 3: one run (docs/checkpoint-format.md, "Version 3").
struct ManifestRun {
  uint64_t keys = 0;
  std::vector<ManifestShard> shards;
};

struct Manifest {
  uint32_t version = kCheckpointVersion;
  uint64_t sequence = 0;
  SeenFilterOptions options;
  std::vector<ManifestLayer> layers;
  std::vector<ManifestShard> shards;  // versions 2 and 3: the big level
  std::vector<ManifestRun> runs;      // version 3
  uint64_t compact_keys = 0;          // versions 2 and 3
  uint64_t log_keys = 0;              // versions 2 and 3
  bool compact() const { return version == kCompactManifestVersion || version == kTieredManifestVersion; }
};

std::string manifest_file_name(uint64_t sequence);
// The sequence number of a manifest file name, or nullopt if `name` is not one.
std::optional<uint64_t> parse_manifest_file_name(std::string_view name);
uint64_t layer_file_size(uint64_t blocks);

std::vector<uint8_t> encode_manifest(const Manifest& manifest);
Manifest decode_manifest(std::span<const uint8_t> bytes, const std::string& file);
// The largest manifest decode_manifest accepts: a layered one of kMaxLayers entries, or a tiered
// one with kMaxManifestShards shards in the big level and in each of kMaxRuns runs (140 KB).
size_t max_manifest_bytes();

std::array<uint8_t, kLayerHeaderBytes> encode_layer_header(const ManifestLayer& layer);
// Checks a layer file's header against the manifest entry that refers to it.
void check_layer_header(std::span<const uint8_t> header, const ManifestLayer& expected, const std::string& file);

}  // namespace bloomcrawl::seenfilter
