// read_checkpoint / load_checkpoint / inspect_checkpoint: all go through the same verified
// manifest and layer-file readers (checkpoint_files.h).
#include <algorithm>
#include <cstring>
#include <new>

#include "base/coding.h"
#include "base/file_system.h"
#include "seenfilter/checkpoint.h"
#include "seenfilter/checkpoint_files.h"
#include "seenfilter/compact_layers.h"
#include "seenfilter/fpr_estimate.h"
#include "seenfilter/layer_plan.h"

namespace bloomcrawl {
namespace fs = std::filesystem;
using seenfilter::ManifestLayer;

namespace {

std::shared_ptr<seenfilter::LayerBits> allocate_layer(const ManifestLayer& entry, const fs::path& path) {
  try {
    return std::make_shared<seenfilter::LayerBits>(entry.geometry());
  } catch (const std::bad_alloc&) {
    throw CheckpointError(path.string(), "cannot allocate " + std::to_string(entry.geometry().bytes()) + " bytes");
  }
}

// A compact shard's file, verified against its manifest entry (size, checksum, keys).
std::shared_ptr<const seenfilter::StaticFilter> read_shard_file(const fs::path& dir,
                                                                const seenfilter::ManifestShard& entry) {
  if (entry.file_size == 0) return nullptr;
  const fs::path path = dir / entry.file_name();
  const std::string bytes = read_whole_file(path, entry.file_size + 1);
  if (bytes.size() != entry.file_size) {
    throw CheckpointError(path.string(), "size " + std::to_string(bytes.size()) + ", the manifest says " +
                                             std::to_string(entry.file_size));
  }
  auto filter =
      std::make_shared<const seenfilter::StaticFilter>(seenfilter::StaticFilter::decode(bytes, path.string()));
  if (load_u64(reinterpret_cast<const uint8_t*>(bytes.data()) + bytes.size() - seenfilter::kChecksumBytes) !=
          entry.checksum ||
      filter->keys() != entry.keys) {
    throw CheckpointError(path.string(), "does not match its manifest entry (checksum or keys)");
  }
  return filter;
}

// A level's shards (consecutive entries naming one file share its filter).
std::vector<FilterSnapshot::Shard> read_shards(const fs::path& dir,
                                               const std::vector<seenfilter::ManifestShard>& entries) {
  std::vector<FilterSnapshot::Shard> shards;
  for (size_t i = 0; i < entries.size(); ++i) {
    const seenfilter::ManifestShard& entry = entries[i];
    if (i > 0 && entry.file_size != 0 && entry.checksum == entries[i - 1].checksum) {
      shards.push_back({shards.back().filter, entry.rotation});
      continue;
    }
    shards.push_back({read_shard_file(dir, entry), entry.rotation});
  }
  return shards;
}

// A level's description for inspect: its distinct files read and verified; the FPR of its
// filters' fingerprint size (a version 2 big level's may differ from today's budget).
CheckpointLayerInfo describe_shards(const fs::path& dir, const std::vector<seenfilter::ManifestShard>& entries,
                                    const char* kind, uint64_t keys, double target_fpr) {
  CheckpointLayerInfo layer;
  layer.kind = kind;
  layer.entry.keys = layer.entry.capacity = keys;
  layer.entry.probes = 3;
  layer.target_fpr = target_fpr;
  for (size_t i = 0; i < entries.size(); ++i) {
    const seenfilter::ManifestShard& entry = entries[i];
    if (entry.file_size == 0 || (i > 0 && entry.checksum == entries[i - 1].checksum)) continue;
    const auto filter = read_shard_file(dir, entry);  // decoding verifies every field
    layer.bytes += filter->bytes();
    layer.estimated_fpr = std::max(layer.estimated_fpr, seenfilter::fuse_fpr(filter->fingerprint_bits()));
  }
  layer.bits_per_key = keys == 0 ? 0.0 : static_cast<double>(layer.bytes) * 8.0 / static_cast<double>(keys);
  return layer;
}

}  // namespace

bool checkpoint_exists(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / seenfilter::kCurrentFileName, ec);
}

FilterSnapshot read_checkpoint(const fs::path& dir, std::string_view manifest_name) {
  const std::string name = seenfilter::resolve_manifest_name(dir, manifest_name);
  const seenfilter::Manifest manifest = seenfilter::read_manifest_file(dir / name);
  FilterSnapshot snapshot;
  snapshot.options = manifest.options;
  for (const ManifestLayer& entry : manifest.layers) {
    const fs::path path = dir / entry.file_name();
    std::shared_ptr<seenfilter::LayerBits> bits;
    seenfilter::scan_layer_file(path, entry, [&](uint64_t offset, const uint8_t* data, size_t size) {
      if (!bits) bits = allocate_layer(entry, path);  // only once the file's size and header are verified
      std::memcpy(reinterpret_cast<uint8_t*>(bits->words()) + offset, data, size);
    });
    // Verified content: a later save of this unchanged layer reuses the file instead of rewriting it.
    bits->cache_checksum(entry.keys, entry.checksum);
    snapshot.layers.push_back({std::move(bits), entry.keys});
  }
  if (manifest.compact()) {
    snapshot.options.hash_log = dir / seenfilter::kHashLogFileName;
    snapshot.compact_keys = manifest.compact_keys;
    snapshot.log_keys = manifest.log_keys;
    snapshot.shards = read_shards(dir, manifest.shards);
    for (const seenfilter::ManifestRun& run : manifest.runs)
      snapshot.runs.push_back({read_shards(dir, run.shards), run.keys});
  }
  return snapshot;
}

std::unique_ptr<SeenFilter> load_checkpoint(const fs::path& dir, std::string_view manifest_name) {
  return std::make_unique<SeenFilter>(read_checkpoint(dir, manifest_name));
}

CheckpointInfo inspect_checkpoint(const fs::path& dir, std::string_view manifest_name) {
  CheckpointInfo info;
  info.manifest = seenfilter::resolve_manifest_name(dir, manifest_name);
  const seenfilter::Manifest manifest = seenfilter::read_manifest_file(dir / info.manifest);
  info.sequence = manifest.sequence;
  info.options = manifest.options;
  info.version = manifest.version;
  info.log_keys = manifest.log_keys;
  const bool compact = manifest.compact();
  const seenfilter::TieredBudget budget = seenfilter::split_tiered_budget(
      manifest.options.target_fpr, seenfilter::kTieredActiveRatio, seenfilter::kMergeRatio);
  if (compact) {
    info.layers.push_back(describe_shards(dir, manifest.shards, "compact", manifest.compact_keys, budget.big_fpr));
    for (const seenfilter::ManifestRun& run : manifest.runs) {
      info.layers.push_back(describe_shards(dir, run.shards, "run", run.keys, budget.run_fpr));
    }
    for (const CheckpointLayerInfo& layer : info.layers) {
      info.keys += layer.entry.keys;
      info.bytes += layer.bytes;
    }
  }
  std::vector<seenfilter::LayerLoad> loads;
  for (const ManifestLayer& entry : manifest.layers) {
    CheckpointLayerInfo layer;
    layer.entry = entry;
    layer.file = entry.file_name();
    seenfilter::scan_layer_file(dir / layer.file, entry, [&](uint64_t, const uint8_t* data, size_t size) {
      for (size_t i = 0; i < size; i += 8) {
        uint64_t word;
        std::memcpy(&word, data + i, 8);
        layer.set_bits += static_cast<uint64_t>(__builtin_popcountll(word));
      }
    });
    const seenfilter::LayerGeometry g = entry.geometry();
    layer.fill = static_cast<double>(layer.set_bits) / static_cast<double>(g.bytes() * 8);
    layer.bits_per_key = g.bits_per_key();
    layer.bytes = g.bytes();
    layer.target_fpr = compact ? budget.bloom_layer_fpr : seenfilter::layer_fpr_share(manifest.options, entry.index);
    layer.estimated_fpr = seenfilter::layer_fpr(g, entry.keys);
    info.keys += entry.keys;
    info.bytes += g.bytes();
    loads.push_back({g, entry.keys});
    info.layers.push_back(layer);
  }
  info.estimated_fpr = seenfilter::compounded_fpr(loads);
  info.estimated_false_positives = seenfilter::expected_false_positives(loads);
  if (compact) {
    // The Bloom layers' compounded FPR with the big level's and the runs'; false positives bounded
    // by the target.
    for (const CheckpointLayerInfo& layer : info.layers) {
      if (layer.kind != "bloom") info.estimated_fpr = 1.0 - (1.0 - info.estimated_fpr) * (1.0 - layer.estimated_fpr);
    }
    info.estimated_false_positives = static_cast<double>(info.keys) * manifest.options.target_fpr;
  }
  return info;
}

}  // namespace bloomcrawl
